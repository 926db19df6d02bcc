package deadlinetest_test

import (
	"testing"
	"time"

	"github.com/invx/invx/internal/deadlinetest"
)

// TestTimeoutFromDeadline: the budget is taken from the test's deadline, so
// it ends before the deadline (with room to report) and is far longer than
// the fixed 45 s it replaces under the default 10 min -timeout.
func TestTimeoutFromDeadline(t *testing.T) {
	t.Parallel()
	d := deadlinetest.Timeout(t)
	dl, ok := t.Deadline()
	if !ok {
		if d != deadlinetest.NoDeadline {
			t.Errorf("no deadline: Timeout = %v, want %v", d, deadlinetest.NoDeadline)
		}
		return
	}
	left := time.Until(dl)
	if d <= 0 || d >= left {
		t.Errorf("Timeout = %v with %v left before the deadline: want a positive budget that ends before it", d, left)
	}
	if d < left/2 {
		t.Errorf("Timeout = %v with %v left: want at least half of it", d, left)
	}
	ctx, cancel := deadlinetest.Context(t)
	defer cancel()
	if cdl, ok := ctx.Deadline(); !ok || !cdl.Before(dl) {
		t.Errorf("Context deadline %v (set %v), want one before the test's %v", cdl, ok, dl)
	}
}
