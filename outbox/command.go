package outbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/invx/invx/store"

	"github.com/invx/invx/internal/procgroup"
)

// ExitTempFail is the exit status (sysexits.h EX_TEMPFAIL) by which a
// delivery command asks for the event to be tried again later.
const ExitTempFail = 75

// Command runs a program once per event, the payload on its stdin and the
// event in its environment (INVX_EVENT_KEY, INVX_EVENT_KIND, INVX_TENANT,
// INVX_JOB_KEY). Exit status 0 is a delivery; 75 (EX_TEMPFAIL), a timeout,
// death by a signal or a failure to start are retried; any other status
// parks the event, with the start of the program's stderr as the error.
// No shell runs: Argv is the program and its arguments.
type Command struct {
	Argv []string
	// Env is added to invx's own environment.
	Env []string
	Dir string
}

// Send implements Sink.
func (c *Command) Send(ctx context.Context, ev *store.OutboxEvent) Result {
	if len(c.Argv) == 0 {
		return Result{Outcome: Failed, Err: "no command"}
	}
	stderr := &capWriter{limit: 4 << 10}
	cmd, err := procgroup.Start(func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
		cmd.Dir = c.Dir
		cmd.Env = append(append(os.Environ(), c.Env...),
			"INVX_EVENT_KEY="+ev.EventKey, "INVX_EVENT_KIND="+ev.Kind, "INVX_TENANT="+ev.Tenant, "INVX_JOB_KEY="+ev.JobKey)
		cmd.Stdin = bytes.NewReader(ev.Payload)
		cmd.Stdout = io.Discard
		cmd.Stderr = stderr
		procgroup.Set(cmd)
		// A grandchild that keeps stderr open must not hold the attempt up.
		cmd.WaitDelay = 2 * time.Second
		return cmd
	})
	if errors.Is(err, procgroup.ErrExiting) {
		return Result{Outcome: Retry, Err: fmt.Sprintf("%s: not started, invx is exiting", c.name())}
	}
	if err == nil {
		err = cmd.Wait()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0 but something it started still held its
		// stderr: the verdict stands; end the rest of the group.
		procgroup.Kill(cmd)
		err = nil
	}
	procgroup.Done(cmd)
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Result{Outcome: Retry, Err: fmt.Sprintf("%s: timed out and was killed", c.name())}
	case err == nil:
		return Result{Outcome: Delivered}
	case errors.As(err, &exitErr):
		code := exitErr.ExitCode()
		res := Result{Status: code, Outcome: Failed}
		if code < 0 {
			// Killed by a signal invx did not send: not the program's verdict.
			return Result{Outcome: Retry, Err: fmt.Sprintf("%s: %s", c.name(), exitErr.ProcessState.String())}
		}
		if code == ExitTempFail {
			res.Outcome = Retry
		}
		res.Err = fmt.Sprintf("%s: exit %d", c.name(), code)
		if msg := oneLine(stderr.buf.Bytes(), ErrTextMax); msg != "" {
			res.Err += ": " + msg
		}
		return res
	default:
		return Result{Outcome: Retry, Err: fmt.Sprintf("start %s: %s", c.name(), oneLine([]byte(unwrapExec(err).Error()), ErrTextMax))}
	}
}

func (c *Command) name() string {
	if len(c.Argv) == 0 {
		return "command"
	}
	return oneLine([]byte(filepath.Base(c.Argv[0])), 200)
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// capWriter keeps the first limit bytes written to it and drops the rest.
type capWriter struct {
	buf   bytes.Buffer
	limit int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.limit - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
