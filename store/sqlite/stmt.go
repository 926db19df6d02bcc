package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/invx/invx/store/internal/jobs"
)

// maxStmts bounds the statements one cache holds. The job logic sends a few
// dozen fixed texts; an IN list with a placeholder per item makes one text
// per list length, so the set is finite but not small. Past the bound a
// statement runs unprepared, as every statement did before the cache.
const maxStmts = 256

// maxStmtParams is the most placeholders a cached statement has, but for
// the multi-row statements of group commit and of an enqueue's new
// documents (jobs.GroupTag: a few texts, padded to a power of two of rows,
// each run on every group or batch) and the
// lookup of source references (jobs.LookupTag: one text, padded to a full
// chunk, run on every chunk of a rerun, where parsing it was about 6 % of
// the CPU). Longer
// texts are the IN lists of a chunk (up to 500 keys), run once per chunk, so
// parsing them again costs little; kept prepared on the writer and on each
// reader connection they raised a 5,000-document run's peak RSS from 63 to
// 76 MiB for no measurable CPU.
const maxStmtParams = 64

// stmts is a lazily filled cache of statements prepared on one pool and
// reused, keyed by SQL text. Parsing and planning a statement cost more CPU
// than running most of ours (a profile of a first run put a fifth of it in
// sqlite3_prepare), so each text is prepared once per connection: a *sql.Stmt
// prepared on the pool remembers the connections it was prepared on and
// prepares itself again only on a connection it has not met (a new one after
// the old was discarded). modernc.org/sqlite keeps the prepared handle in
// its statement and resets it after each run.
type stmts struct {
	db *sql.DB
	m  sync.Map // SQL text -> *sql.Stmt
	n  atomic.Int32
}

func newStmts(db *sql.DB) *stmts { return &stmts{db: db} }

// get is q's statement if it is cached, else nil.
func (c *stmts) get(q string) *sql.Stmt {
	if v, ok := c.m.Load(q); ok {
		return v.(*sql.Stmt)
	}
	return nil
}

// prepare is q's statement, prepared on the pool now if it is not cached;
// nil (and no error) when the cache is full or q is too long to keep: run q
// unprepared. It takes a connection of the pool, so it must never be called
// by a goroutine inside a write transaction (the writer pool has one
// connection: it would wait for itself). No lock is held while preparing:
// two goroutines may prepare one text at once, and the loser closes its
// copy.
func (c *stmts) prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := c.get(q); st != nil {
		return st, nil
	}
	if c.n.Load() >= maxStmts || (strings.Count(q, "?") > maxStmtParams && !strings.HasPrefix(q, jobs.GroupTag) &&
		!strings.HasPrefix(q, jobs.LookupTag)) {
		return nil, nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if v, loaded := c.m.LoadOrStore(q, st); loaded {
		_ = st.Close()
		return v.(*sql.Stmt), nil
	}
	c.n.Add(1)
	return st, nil
}

// warm prepares, after a write transaction ended, the statements it ran
// unprepared because the cache lacked them (it could not prepare them
// inside the transaction: see prepare). A failure only means the next
// transaction runs them unprepared again, so it is not reported.
func (c *stmts) warm(ctx context.Context, qs []string) {
	for _, q := range qs {
		if _, err := c.prepare(ctx, q); err != nil {
			return
		}
	}
}

// close closes every cached statement; the cache must not be used after.
func (c *stmts) close() error {
	var first error
	c.m.Range(func(k, v any) bool {
		if err := v.(*sql.Stmt).Close(); err != nil && first == nil {
			first = err
		}
		c.m.Delete(k)
		return true
	})
	return first
}
