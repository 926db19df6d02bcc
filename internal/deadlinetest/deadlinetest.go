// Package deadlinetest gives tests wall-clock budgets derived from their own
// deadline (go test -timeout) instead of fixed ones. A fixed budget per
// command (say 45 s) fails a test that is merely slow on a loaded machine,
// while the test itself still had minutes left; a budget taken from the
// deadline only runs out when the test would have failed anyway, and still
// fires early enough to name the command that hung instead of the whole
// test binary panicking at its timeout.
package deadlinetest

import (
	"context"
	"testing"
	"time"
)

// NoDeadline is the budget of a test run without a deadline (-timeout 0).
const NoDeadline = time.Hour

// Timeout is how long one command or wait of t may take from now: what is
// left of t's deadline minus a margin (a tenth of it, at least 5 s) to
// report the failure, and never less than half of what is left.
func Timeout(t *testing.T) time.Duration {
	t.Helper()
	dl, ok := t.Deadline()
	if !ok {
		return NoDeadline
	}
	left := time.Until(dl)
	d := left - max(left/10, 5*time.Second)
	return max(d, left/2)
}

// Context is t.Context() bounded by Timeout(t).
func Context(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	return context.WithTimeout(t.Context(), Timeout(t))
}
