package driver

import "github.com/invx/invx/store"

// Transient marks err as transient for store.IsTransient, keeping its message and
// chain. Drivers call it from their error-translation function; nil stays nil.
func Transient(err error) error {
	if err == nil || store.IsTransient(err) {
		return err
	}
	return &transientError{err: err}
}

type transientError struct{ err error }

func (e *transientError) Error() string        { return e.err.Error() }
func (e *transientError) Unwrap() error        { return e.err }
func (e *transientError) Is(target error) bool { return target == store.ErrTransient }
