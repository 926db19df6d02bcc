package driver

import "github.com/invx/invx/store"

// ExistingOutcome is the enqueue outcome of a document whose job was already
// there: state and path are the job's, docPath the document's. Both drivers
// use it so the outcomes (and the summaries built on them) cannot drift. A
// held job asked to be processed (OnChangeProcess) is the caller's case:
// only it knows whether the release happened.
func ExistingOutcome(state, path, docPath string) string {
	switch {
	case state == store.StateHeld:
		return store.EnqueueHeld
	case path != docPath:
		return store.EnqueueDuplicate
	case state == store.StateSucceeded:
		return store.EnqueueAlreadyCommitted
	case state == store.StateRejected || state == store.StateFailed:
		return store.EnqueueNeedsReview
	case state == store.StateDismissed:
		return store.EnqueueDismissed
	default:
		return store.EnqueuePending
	}
}
