package extract

import (
	"sync"
)

// feed is an enqueue running while Work does (invx run enqueues its folders
// and works the queue at once, so the first calls start with the first
// batch written rather than after the last).
type feed struct {
	signal chan struct{} // one token: a batch was enqueued since Work looked
	done   chan struct{} // closed when the enqueue ended
	err    error         // why it ended early, if it did; set before done closes
}

// Feed tells Work that documents are still being enqueued: an empty queue
// does not end Work until the returned function is called, and each
// enqueued batch wakes a waiting Work. Calling it with an error (the walk
// or the enqueue failed) stops Work as an interrupt does: nothing new is
// claimed and what is in flight finishes. Call Feed before Work starts.
func (r *Runner) Feed() (done func(error)) {
	f := &feed{signal: make(chan struct{}, 1), done: make(chan struct{})}
	r.mu.Lock()
	r.feed = f
	r.mu.Unlock()
	var once sync.Once
	return func(err error) {
		once.Do(func() {
			f.err = err
			if err != nil {
				r.stopCalls() // at once: no job waiting for a slot starts its call
			}
			close(f.done)
		})
	}
}

// currentFeed is the feed Work watches, or nil.
func (r *Runner) currentFeed() *feed {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.feed
}

// fed wakes a Work waiting for a batch.
func (r *Runner) fed() {
	if f := r.currentFeed(); f != nil {
		select {
		case f.signal <- struct{}{}:
		default:
		}
	}
}

// feeding reports whether an enqueue is still running, and whether it
// failed (Work must stop claiming).
func (f *feed) feeding() (running, failed bool) {
	if f == nil {
		return false, false
	}
	select {
	case <-f.done:
		return false, f.err != nil
	default:
		return true, false
	}
}

// wake is the channel that signals a batch, nil (never ready) without a
// running feed.
func (f *feed) wake() <-chan struct{} {
	if running, _ := f.feeding(); !running {
		return nil
	}
	return f.signal
}
