package driver_test

import (
	"testing"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

func TestExistingOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state, path, docPath, want string
	}{
		{store.StateHeld, "a.txt", "b.txt", store.EnqueueHeld},
		{store.StateSucceeded, "a.txt", "b.txt", store.EnqueueDuplicate},
		{store.StateQueued, "a.txt", "b.txt", store.EnqueueDuplicate},
		{store.StateSucceeded, "a.txt", "a.txt", store.EnqueueAlreadyCommitted},
		{store.StateRejected, "a.txt", "a.txt", store.EnqueueNeedsReview},
		{store.StateFailed, "a.txt", "a.txt", store.EnqueueNeedsReview},
		{store.StateDismissed, "a.txt", "a.txt", store.EnqueueDismissed},
		{store.StateQueued, "a.txt", "a.txt", store.EnqueuePending},
		{store.StateRunning, "a.txt", "a.txt", store.EnqueuePending},
		{store.StateRetryWait, "a.txt", "a.txt", store.EnqueuePending},
	}
	for _, tc := range tests {
		if got := driver.ExistingOutcome(tc.state, tc.path, tc.docPath); got != tc.want {
			t.Errorf("ExistingOutcome(%s, %s, %s) = %s, want %s", tc.state, tc.path, tc.docPath, got, tc.want)
		}
	}
}
