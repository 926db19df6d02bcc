package store_test

import (
	"testing"

	"github.com/invx/invx/store"
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
		if got := store.ExistingOutcome(tc.state, tc.path, tc.docPath); got != tc.want {
			t.Errorf("ExistingOutcome(%s, %s, %s) = %s, want %s", tc.state, tc.path, tc.docPath, got, tc.want)
		}
	}
}

func TestIsKeyPrefix(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]bool{
		"3f2a9c1e": true, "3f2a9c1": false, "3F2A9C1E": false, "invoice.txt": false,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef":  true,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0": false,
	} {
		if got := store.IsKeyPrefix(ref); got != want {
			t.Errorf("IsKeyPrefix(%q) = %v, want %v", ref, got, want)
		}
	}
}
