package driver

import "github.com/invx/invx/store"

// ExistingOutcome is store.ExistingOutcome: the enqueue outcome of a
// document whose job was already there.
func ExistingOutcome(state, path, docPath string) string {
	return store.ExistingOutcome(state, path, docPath)
}
