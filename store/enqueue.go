package store

// IsKeyPrefix reports whether ref looks like a job key or a prefix of one
// long enough to look up (8 to 64 lowercase hex digits), rather than a path.
func IsKeyPrefix(ref string) bool {
	if len(ref) < 8 || len(ref) > 64 {
		return false
	}
	for _, c := range ref {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ExistingOutcome is the enqueue outcome of a document whose job was already
// there: state and path are the job's, docPath the document's. Both drivers
// and the stat check use it so the outcomes (and the summaries built on
// them) cannot drift. A held job asked to be processed (OnChangeProcess) is
// the caller's case: only it knows whether the release happened.
func ExistingOutcome(state, path, docPath string) string {
	switch {
	case state == StateHeld:
		return EnqueueHeld
	case path != docPath:
		return EnqueueDuplicate
	case state == StateSucceeded:
		return EnqueueAlreadyCommitted
	case state == StateRejected || state == StateFailed:
		return EnqueueNeedsReview
	case state == StateDismissed:
		return EnqueueDismissed
	default:
		return EnqueuePending
	}
}
