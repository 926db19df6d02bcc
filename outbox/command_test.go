//go:build unix

package outbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/outbox"
	"github.com/invx/invx/store"
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
		{"stderr capped", "echo " + long + " >&2\nexit 3\n", outbox.Failed, 3, "exit 3: " + long[:outbox.ErrTextMax-len("…")] + "…"},
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

// TestDeliverCommand delivers through a real program: each event's payload
// reaches it on stdin with its key, kind, tenant and job in the environment;
// exit 75 retries the event, exit 2 parks it with stderr, exit 0 marks it
// delivered.
func TestDeliverCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	received := filepath.Join(dir, "received")
	// The call number decides the answer: retry, park, then deliver.
	p := script(t, `T=`+shellQuote(dir)+`
n=$(cat "$T/count" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$T/count"
{ printf '%s|%s|%s|%s|%s|' "$n" "$INVX_EVENT_KEY" "$INVX_EVENT_KIND" "$INVX_TENANT" "$INVX_JOB_KEY"; cat; echo; } >> "$T/received"
case "$n" in
1) echo 'ledger locked' >&2; exit 75 ;;
2) echo 'bad payload' >&2; exit 2 ;;
esac
`)
	st, d, _ := setup(t, 1, &outbox.Command{Argv: []string{"/bin/sh", p}})
	sum := deliver(t, d)
	if sum.Delivered != 1 || sum.Retried != 1 || sum.Failed != 1 {
		t.Errorf("summary %+v, want 1 delivered, 1 retried, 1 failed", sum)
	}
	evs := events(t, st, "acme")
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2", len(evs))
	}
	if e := evs[0]; e.State != store.OutboxDelivered || e.Attempts != 2 || e.DeliveredAt.IsZero() {
		t.Errorf("event %s: %s after %d attempts (delivered at %v), want delivered after 2", e.EventKey, e.State, e.Attempts, e.DeliveredAt)
	}
	if e := evs[1]; e.State != store.OutboxFailed || e.Attempts != 1 || e.LastError != "sh: exit 2: bad payload" {
		t.Errorf("event %s: %s after %d attempts, error %q; want failed after 1 with the program's stderr", e.EventKey, e.State, e.Attempts, e.LastError)
	}
	line := func(n int, e *store.OutboxEvent) string {
		return fmt.Sprintf("%d|%s|%s|%s|%s|%s\n", n, e.EventKey, e.Kind, e.Tenant, e.JobKey, e.Payload)
	}
	want := line(1, evs[0]) + line(2, evs[1]) + line(3, evs[0])
	b, err := os.ReadFile(received)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("what the program received (-want +got):\n%s", diff)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
