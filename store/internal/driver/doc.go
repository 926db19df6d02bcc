// Package driver holds the logic the store drivers (store/sqlite,
// store/postgres) share, so that "logic once, SQL per engine" holds without
// widening the store contract: the migration runner's file loading, the
// enqueue outcome of an existing job, the tenant round robin of Claim, the
// FindJobs helpers, the Stats builder and the transient-error marker. It
// is internal to store: callers outside it use store.Store only.
package driver
