// Package command is the extract.Provider that runs a program of the user's:
// the normalised document on stdin, the candidate JSON on stdout.
//
// The program runs once per call, without a shell, in its own process group
// so a timeout kills everything it started. Its environment is invx's own,
// then Config.Env, then these variables, which describe the call:
//
//	INVX_JOB_KEY         the job key
//	INVX_TENANT          the tenant
//	INVX_ATTEMPT         the attempt number, from 1
//	INVX_SCHEMA_VERSION  the schema version to write: invoice-summary-v1 or invoice-v2
//	INVX_FEEDBACK        on a repair re-ask, why the previous answer was
//	                     rejected ("category: path: message"); else empty
//
// Exit status 0 means stdout is the answer; 75 (EX_TEMPFAIL) asks for a
// retry later; any other status fails the job, with the program's stderr,
// cleaned and truncated, as the reason.
package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/invx/invx/extract"

	"github.com/invx/invx/internal/procgroup"
)

// Defaults for Config's zero values.
const (
	DefaultTimeout   = 2 * time.Minute
	DefaultMaxOutput = 1 << 20
)

// ExitTempFail is the exit status (sysexits.h EX_TEMPFAIL) by which the
// program asks to be retried later.
const ExitTempFail = 75

// maxStderr is how much of the program's stderr an error message keeps.
const maxStderr = 500

// waitDelay bounds how long a finished or killed program's leftover
// children may hold its stdout and stderr open.
const waitDelay = 2 * time.Second

// Config configures a Provider.
type Config struct {
	// Argv is the program and its arguments; required. cmd splits a
	// --command string with SplitCommand.
	Argv []string
	// Timeout bounds one call (0 is DefaultTimeout).
	Timeout time.Duration
	// MaxOutput caps stdout in bytes (0 is DefaultMaxOutput); more is a
	// rejected answer.
	MaxOutput int64
	// Dir is the working directory ("" is invx's own).
	Dir string
	// Env is added to the parent's environment ("KEY=value" each).
	Env []string
}

// Provider runs the configured program. It is safe for concurrent use.
type Provider struct {
	argv      []string
	timeout   time.Duration
	maxOutput int64
	dir       string
	env       []string
	model     string
}

var _ extract.Provider = (*Provider)(nil)

// New checks cfg and returns a Provider. It also checks that the program
// exists and is executable, so a typo fails at once rather than once per
// document. Errors are ClassPermanent *extract.ProviderError values with
// Category "config".
func New(cfg Config) (*Provider, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, configErr("--command is required for the command provider", nil)
	}
	if cfg.Timeout < 0 || cfg.MaxOutput < 0 {
		return nil, configErr("command timeout and output limit must not be negative", nil)
	}
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, configErr(fmt.Sprintf("command environment entry %q is not KEY=value", extract.Truncate(kv, 40)), nil)
		}
	}
	if cfg.Dir != "" {
		if fi, err := os.Stat(cfg.Dir); err != nil || !fi.IsDir() {
			return nil, configErr(fmt.Sprintf("command directory %s does not exist", cfg.Dir), err)
		}
	}
	if err := checkProgram(cfg.Argv[0], cfg.Dir); err != nil {
		return nil, err
	}
	p := &Provider{argv: append([]string(nil), cfg.Argv...), timeout: cfg.Timeout, maxOutput: cfg.MaxOutput,
		dir: cfg.Dir, env: append([]string(nil), cfg.Env...), model: filepath.Base(cfg.Argv[0])}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.maxOutput == 0 {
		p.maxOutput = DefaultMaxOutput
	}
	return p, nil
}

// checkProgram finds name as exec would: in PATH when it has no slash,
// else relative to dir.
func checkProgram(name, dir string) error {
	if !strings.ContainsRune(name, filepath.Separator) && !strings.ContainsRune(name, '/') {
		if _, err := exec.LookPath(name); err != nil {
			return configErr(fmt.Sprintf("command %q: not found in PATH", extract.Truncate(name, 200)), err)
		}
		return nil
	}
	path := name
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return configErr(fmt.Sprintf("command %s: not found", extract.Truncate(name, 200)), err)
	case fi.IsDir():
		return configErr(fmt.Sprintf("command %s: is a directory", extract.Truncate(name, 200)), nil)
	case fi.Mode()&0o111 == 0 && !isWindows:
		return configErr(fmt.Sprintf("command %s: not executable (chmod +x?)", extract.Truncate(name, 200)), nil)
	}
	return nil
}

func configErr(msg string, err error) *extract.ProviderError {
	return &extract.ProviderError{Class: extract.ClassPermanent, Category: "config", Msg: msg, Err: err}
}

// Name implements extract.Provider.
func (*Provider) Name() string { return "command" }

// Extract implements extract.Provider: it runs the program once. Stdout
// over the output limit is ClassRejected (Category "decode"); exit 75 is
// transient; a timeout kills the program's process group and is transient
// (Category "timeout"); any other non-zero exit is permanent (Category
// "exit"), a program that cannot be started is permanent (Category
// "config"), death by a crash signal (SIGSEGV, SIGABRT, SIGBUS, SIGILL,
// SIGFPE, SIGSYS, SIGTRAP) is permanent (Category "crash": a bug in the
// program), and death by another signal invx did not send (SIGKILL from the
// OOM killer, SIGTERM) is transient (Category "signal"). A cancelled ctx is
// interrupted.
func (p *Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, extract.TransportError(ctx, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()

	feedback := ""
	if req.Feedback != nil {
		feedback = req.Feedback.Error()
	}
	version := ""
	if req.Schema != nil {
		version = req.Schema.Name
	}
	// Past the limit the answer is lost anyway: stop the program at once.
	stdout := &capWriter{limit: p.maxOutput + 1, onOver: cancel}
	stderr := &capWriter{limit: 4 << 10}
	cmd, err := procgroup.Start(func() *exec.Cmd {
		cmd := exec.CommandContext(callCtx, p.argv[0], p.argv[1:]...)
		cmd.Dir = p.dir
		cmd.Env = append(os.Environ(), p.env...)
		cmd.Env = append(cmd.Env, "INVX_JOB_KEY="+req.JobKey, "INVX_TENANT="+req.Tenant,
			"INVX_ATTEMPT="+strconv.Itoa(req.Attempt), "INVX_SCHEMA_VERSION="+version, "INVX_FEEDBACK="+feedback)
		cmd.Stdin = strings.NewReader(req.Text)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		procgroup.Set(cmd)
		cmd.WaitDelay = waitDelay
		return cmd
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, extract.TransportError(ctx, ctx.Err())
		}
		if errors.Is(err, procgroup.ErrExiting) {
			// The second signal: the job keeps its lease until it expires.
			return nil, &extract.ProviderError{Class: extract.ClassInterrupted, Msg: "interrupted", Err: err}
		}
		return nil, configErr(fmt.Sprintf("start %s: %s", extract.Truncate(p.argv[0], 200), startReason(err)), err)
	}
	// On a timeout, an overflow or a cancelled ctx, cmd.Cancel kills the
	// whole process group before the program is reaped.
	err = cmd.Wait()
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program is gone but something it started still holds its
		// output open: end the rest of the group too. The group is not
		// empty, so its id cannot have been reused.
		procgroup.Kill(cmd)
	}
	procgroup.Done(cmd)

	resp := &extract.Response{Model: p.model}
	switch {
	case ctx.Err() != nil:
		// The caller gave up (interrupt, lease lost or its own deadline).
		return nil, extract.TransportError(ctx, ctx.Err())
	case stdout.over:
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Category: "decode",
			Msg: fmt.Sprintf("output over %d bytes", p.maxOutput)}
	case callCtx.Err() != nil:
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Category: "timeout",
			Msg: fmt.Sprintf("%s timed out after %s and was killed", p.model, p.timeout), Err: callCtx.Err()}
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		resp.Output = stdout.buf.Bytes()
		return resp, nil
	case errors.As(err, &exitErr):
		code := exitErr.ExitCode()
		reason := stderrReason(stderr.buf.Bytes())
		switch {
		case code == ExitTempFail:
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Category: "tempfail",
				Msg: fmt.Sprintf("%s exited with status %d (try again later)%s", p.model, code, reason), Err: err}
		case code < 0 && crashed(exitErr):
			// A crash is a bug in the program: the same document would
			// crash it again.
			return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "crash",
				Msg: fmt.Sprintf("%s crashed: %s%s", p.model, exitErr.String(), reason), Err: err}
		case code < 0:
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Category: "signal",
				Msg: fmt.Sprintf("%s was killed: %s%s", p.model, exitErr.String(), reason), Err: err}
		default:
			return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "exit",
				Msg: fmt.Sprintf("%s exited with status %d%s", p.model, code, reason), Err: err}
		}
	case errors.Is(err, exec.ErrWaitDelay):
		// The program exited 0, but something it started kept stdout open.
		resp.Output = stdout.buf.Bytes()
		return resp, nil
	default:
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Category: "io",
			Msg: fmt.Sprintf("run %s: %v", p.model, err), Err: err}
	}
}

// startReason says why a program could not be started, in a few words.
func startReason(err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "not found"
	case errors.Is(err, fs.ErrPermission):
		return "not executable"
	case errors.Is(err, syscall.ENOEXEC):
		return "not a program (a script needs a #! line)"
	}
	return extract.Truncate(err.Error(), 200)
}

// stderrReason is ": " and the cleaned stderr, or "" if it said nothing.
func stderrReason(b []byte) string {
	s := cleanStderr(b)
	if s == "" {
		return ""
	}
	return ": " + s
}

// cleanStderr makes a program's stderr one printable line of at most
// maxStderr bytes: control characters other than newline and tab dropped,
// invalid UTF-8 replaced, newlines shown as " | ".
func cleanStderr(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
	var lines []string
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return extract.Truncate(strings.Join(lines, " | "), maxStderr)
}

// capWriter keeps the first limit bytes written to it. Past the limit it
// either calls onOver and fails the write (stdout: the program gets EPIPE
// and the call is over) or swallows the rest (stderr: a chatty program must
// not block). exec writes from one goroutine and Wait waits for it, so no
// lock is needed.
type capWriter struct {
	buf    bytes.Buffer
	limit  int64
	onOver func()
	over   bool
}

var errOverflow = errors.New("output limit reached")

func (w *capWriter) Write(b []byte) (int, error) {
	room := w.limit - int64(w.buf.Len())
	if int64(len(b)) <= room {
		return w.buf.Write(b)
	}
	w.buf.Write(b[:max(room, 0)])
	w.over = true
	if w.onOver != nil {
		w.onOver()
		return int(max(room, 0)), errOverflow
	}
	return len(b), nil
}
