// Package procgroup runs child programs (the command provider, the outbox's
// command sink) in a process group of their own, so that cancelling one
// kills everything it started: a pipeline in a script, a model server it
// spawned.
package procgroup
