//go:build unix

package outbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/outbox"
)

// script writes a shell script and returns its path. Tests run it as
// /bin/sh PATH: exec'ing a file just written races with parallel tests that
// fork while it is still open for writing (ETXTBSY).
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "deliver.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommandSink(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name       string
		body       string
		want       outbox.Outcome
		wantStatus int
		wantErr    string
	}{
		{"exit 0", "cat >/dev/null\nexit 0\n", outbox.Delivered, 0, ""},
		{"exit 75", "echo 'ledger locked' >&2\nexit 75\n", outbox.Retry, 75, "exit 75: ledger locked"},
		{"exit 2", "echo 'bad payload' >&2\nexit 2\n", outbox.Failed, 2, "exit 2: bad payload"},
		{"exit 1 no stderr", "exit 1\n", outbox.Failed, 1, "exit 1"},
		{"stderr capped", "echo " + long + " >&2\nexit 3\n", outbox.Failed, 3, "exit 3: " + long[:outbox.ErrTextMax] + "…"},
		{"killed by a signal", "kill -9 $$\n", outbox.Retry, 0, "signal: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := script(t, tc.body)
			got := (&outbox.Command{Argv: []string{"/bin/sh", p}}).Send(context.Background(), testEvent())
			if got.Outcome != tc.want || got.Status != tc.wantStatus || !strings.HasSuffix(got.Err, tc.wantErr) ||
				(tc.wantErr == "") != (got.Err == "") {
				t.Errorf("Send = %+v, want outcome %v status %d err ending %q", got, tc.want, tc.wantStatus, tc.wantErr)
			}
		})
	}
}

// The program gets the payload on stdin and the event in its environment.
func TestCommandSinkInput(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "seen")
	p := script(t, `{ echo "$INVX_EVENT_KEY|$INVX_EVENT_KIND|$INVX_TENANT|$INVX_JOB_KEY|$EXTRA"; cat; } > `+out+"\n")
	ev := testEvent()
	got := (&outbox.Command{Argv: []string{"/bin/sh", p}, Env: []string{"EXTRA=yes"}}).Send(context.Background(), ev)
	if got.Outcome != outbox.Delivered {
		t.Fatalf("Send = %+v", got)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "3f2a9c1e:a1|review_tax|acme|3f2a9c1e|yes\n" + string(ev.Payload)
	if string(b) != want {
		t.Errorf("the program saw %q, want %q", b, want)
	}
}

// A program that outlives the attempt's deadline is killed, with what it
// started, and the event is retried.
func TestCommandSinkTimeout(t *testing.T) {
	t.Parallel()
	p := script(t, "sleep 30 &\nsleep 30\n")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := (&outbox.Command{Argv: []string{"/bin/sh", p}}).Send(ctx, testEvent())
	if got.Outcome != outbox.Retry || !strings.Contains(got.Err, "timed out") {
		t.Errorf("Send = %+v, want a retry after a timeout", got)
	}
	if d := time.Since(start); d > 20*time.Second { // well under the sleep 30, generous for a loaded machine
		t.Errorf("Send took %v after the deadline", d)
	}
}

func TestCommandSinkMissingProgram(t *testing.T) {
	t.Parallel()
	got := (&outbox.Command{Argv: []string{filepath.Join(t.TempDir(), "nope")}}).Send(context.Background(), testEvent())
	if got.Outcome != outbox.Retry || !strings.Contains(got.Err, "start ") {
		t.Errorf("Send = %+v, want a retry naming the start failure", got)
	}
}
