// Package jobs is the job logic of the store, written once for both
// drivers: fencing by lease token, state transitions, enqueue outcomes,
// claim fairness, review reasons and the outbox rows they hold or release.
// A driver (store/sqlite, store/postgres) supplies an Engine: how a write
// transaction runs, the clock, and the few statements only it can say
// (SKIP LOCKED, advisory locks). Statements here are written once, with ?
// placeholders, in the SQL both engines accept; the PostgreSQL engine
// numbers the placeholders. A new store feature is written here once, plus
// what is engine-specific in each driver's Engine.
//
// It is internal to store: callers outside it use store.Store only.
package jobs
