// Package driver holds the pure helpers of the store's shared logic, with
// no database access: the migration runner's file loading, the enqueue
// outcome of an existing job, the tenant round robin of Claim, the FindJobs
// helpers, review reasons, the Stats builder and the transient-error
// marker. The job logic that runs statements lives in store/internal/jobs,
// on an engine each driver supplies. It is internal to store: callers
// outside it use store.Store only.
package driver
