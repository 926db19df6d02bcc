package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/invx/invx/internal/crashpoint"
	"github.com/invx/invx/store"
)

// MaxGroupCommit bounds how many commits share one transaction. It bounds
// how long a group holds its row locks, and on PostgreSQL it keeps a
// group's subtransactions (one per savepoint that wrote) within the 64 a
// backend caches: past that, every other session's snapshot overflows to
// pg_subtrans lookups until the group ends.
const MaxGroupCommit = 64

// DefaultLinger is the longest a group waits for more commits
// (CommitConfig.Linger). A transaction costs an fsync and a rewrite of
// every page it shares with the next one, so larger groups save CPU. The
// wait holds no one else up: a runner claims new jobs for the places of
// those whose commit it handed over (extract's commitAhead), so at
// --concurrency 4 the replay run's groups grew from 4 to 22 commits (10k
// documents: 2,530 -> 450 transactions). At a provider's pace the groups
// are as large as the linger lets arrivals gather: a fake-LLM run at c64
// (320 answers a second) wrote groups of about 8 at 25 ms and spent about
// 10 % more CPU than at 100 ms (13.9-14.8 vs 12.3-13.1 CPU s for 10k). Waits
// are arrival-paced besides (lingerGaps), so the last commits of a run, or
// those of a slow provider (answers more than 25 ms apart), are not held
// back.
const DefaultLinger = 100 * time.Millisecond

// lingerGaps is how many mean gaps between arrivals a group waits for the
// next commit before it is written: a pause that long says the stream of
// answers has stopped for now (at random arrivals, about one gap in fifty
// is that long).
const lingerGaps = 4

// CommitConfig is what an engine supplies to group commit beyond Engine.
type CommitConfig struct {
	// MaxGroup bounds a group (MaxGroupCommit when 0); 1 turns grouping
	// off.
	MaxGroup int
	// Linger is the longest a group waits for more commits. It waits only
	// while commits keep arriving, each within lingerGaps mean gaps of the
	// one before (the gaps are measured as commits arrive): a larger
	// group writes each shared page once instead of once per transaction.
	// When commits arrive further apart than Linger/lingerGaps (one
	// provider call at a time) none is held back. DefaultLinger when 0;
	// negative: never wait.
	Linger time.Duration
	// Timeout bounds one group's transaction once it has started, so a
	// lost connection cannot hold its callers forever; 0: no bound.
	Timeout time.Duration
	// Times gives each commit of a group its time (Unix ms), called first
	// inside the group's transaction; it starts from scratch when the
	// transaction is run again. Nil: each commit's Now.
	Times func(ctx context.Context, tx Tx, now []time.Time) ([]int64, error)
}

// CommitStats counts what group commit has done, for tests and
// diagnostics.
type CommitStats struct {
	// Transactions is how many group transactions committed.
	Transactions int64
	// Commits is how many commits they carried (stale ones included).
	Commits int64
}

// committer is group commit, the same on every engine: one goroutine takes
// whatever commits are waiting (never waiting for more, so a lone commit
// pays no latency) and writes them in one transaction, each under its own
// savepoint so that a lost fence or a failed statement undoes only its own
// job.
type committer struct {
	cfg  CommitConfig
	reqs chan *commitReq // unbuffered: a receive is the hand-over
	quit chan struct{}
	done chan struct{}
	stop sync.Once

	txs, commits atomic.Int64

	// last is when the latest commit arrived and gap the moving mean of
	// the time between arrivals (0: not known yet); the committer's
	// goroutine alone uses them.
	last time.Time
	gap  time.Duration
}

// arrived records a commit's arrival at now in the mean gap (a moving
// average over about the last eight arrivals).
func (g *committer) arrived(now time.Time) {
	if !g.last.IsZero() {
		d := now.Sub(g.last)
		if g.gap == 0 {
			g.gap = d
		} else {
			g.gap += (d - g.gap) / 8
		}
	}
	g.last = now
}

// step is how long a group waits for its next commit: lingerGaps mean
// gaps, or 0 (do not wait) when that is more than Linger allows or no gap
// is known yet.
func (g *committer) step() time.Duration {
	s := lingerGaps * g.gap
	if g.cfg.Linger <= 0 || g.gap <= 0 || s > g.cfg.Linger {
		return 0
	}
	return s
}

type commitReq struct {
	p      *store.CommitParams
	packed *packed
	res    *store.CommitResult
	err    error
	done   chan struct{}
}

// StartCommits starts group commit; Open calls it once, before the first
// Commit, and Close calls CloseCommits.
func (c *Core) StartCommits(cfg CommitConfig) {
	if cfg.MaxGroup <= 0 || cfg.MaxGroup > MaxGroupCommit {
		cfg.MaxGroup = MaxGroupCommit
	}
	if cfg.Linger == 0 {
		cfg.Linger = DefaultLinger
	}
	g := &committer{cfg: cfg, reqs: make(chan *commitReq), quit: make(chan struct{}), done: make(chan struct{})}
	c.g = g
	go c.runCommits(g)
}

// CloseCommits stops group commit after the group in hand: every commit
// handed over learns its outcome; a commit not yet handed over fails with
// "store closed". It may be called more than once.
func (c *Core) CloseCommits() {
	// After the commits: a commit in hand may still collect a sample.
	defer c.closeDicts()
	if c.g == nil {
		return
	}
	c.g.stop.Do(func() { close(c.g.quit) })
	<-c.g.done
}

// CommitStats reports what group commit has done so far.
func (c *Core) CommitStats() CommitStats {
	return CommitStats{Transactions: c.g.txs.Load(), Commits: c.g.commits.Load()}
}

// Commit implements store.Store: the commit joins the next group.
func (c *Core) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	req := &commitReq{p: p, packed: c.packCommit(p), done: make(chan struct{})}
	select {
	case c.g.reqs <- req:
	case <-c.g.quit:
		return nil, fmt.Errorf("commit job %s: store closed", p.JobKey)
	case <-ctx.Done():
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, ctx.Err())
	}
	if p.HandedOver != nil {
		p.HandedOver()
	}
	// Once handed over, the commit is carried out whatever ctx does: the
	// caller learns the outcome rather than guessing.
	<-req.done
	if errors.Is(req.err, store.ErrStaleLease) {
		return nil, req.err // recorded in the group; names the job already
	}
	if req.err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, req.err)
	}
	return req.res, nil
}

// runCommits is the committer's loop.
func (c *Core) runCommits(g *committer) {
	defer close(g.done)
	for {
		var first *commitReq
		select {
		case first = <-g.reqs:
		case <-g.quit:
			return
		}
		start := time.Now()
		g.arrived(start)
		group := g.gather([]*commitReq{first}, start, g.step())
		c.commitGroup(g, group)
		for _, r := range group {
			close(r.done)
		}
	}
}

// gather adds to group the commits waiting now and, when step is not 0,
// those that arrive each within step of the one before, until Linger has
// passed since start or the group has MaxGroup commits.
func (g *committer) gather(group []*commitReq, start time.Time, step time.Duration) []*commitReq {
drain:
	for len(group) < g.cfg.MaxGroup {
		select {
		case r := <-g.reqs:
			g.arrived(time.Now())
			group = append(group, r)
		default:
			break drain
		}
	}
	if step <= 0 || len(group) >= g.cfg.MaxGroup {
		return group
	}
	deadline := start.Add(g.cfg.Linger)
	t := time.NewTimer(min(step, time.Until(deadline)))
	defer t.Stop()
	for len(group) < g.cfg.MaxGroup {
		select {
		case r := <-g.reqs:
			now := time.Now()
			g.arrived(now)
			group = append(group, r)
			left := deadline.Sub(now)
			if left <= 0 {
				return group
			}
			t.Reset(min(step, left))
		case <-t.C:
			return group
		case <-g.quit:
			return group // closing: write what is in hand
		}
	}
	return group
}

// savepoints are the names a group's members take in turn when the group
// is written one member at a time. SAVEPOINT and RELEASE are deferred (an
// engine may send them with the member's first statement), so a failed
// RELEASE of member i-1 surfaces as member i's error. Member i's ROLLBACK TO
// then finds no savepoint of its own name and fails the whole group: the
// only savepoint left unreleased is i-1's, of the other name, and rolling
// back to it would undo a member already counted committed.
var savepoints = [2]string{"group_commit_a", "group_commit_b"}

// groupSavepoint holds the writes of a whole group, made with one
// statement per table: when one of them fails, they are all rolled back
// to it and the group is written again one member at a time, so the
// failure is the failing member's alone.
const groupSavepoint = "group_commit_all"

// commitGroup writes a group in one transaction: every member with one
// statement per table (commitMembers). A member whose fence failed is
// recorded stale_lease in the same transaction and wrote nothing else.
// When a statement of the group fails, the group is rolled back to its
// savepoint and written member by member, each under a savepoint of its
// own, so that any other error of a member is rolled back alone and is
// that member's alone. An error of the transaction itself (its COMMIT, a
// savepoint, the clock) is every member's: nothing of the group was kept,
// or its fate is unknown, and no member is reported committed.
func (c *Core) commitGroup(g *committer, group []*commitReq) {
	ctx := context.Background()
	if g.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.cfg.Timeout)
		defer cancel()
	}
	err := c.write(ctx, regionCommit, func(tx Tx) error {
		// The engine may run this again after the database aborted the
		// transaction (a deadlock): every member starts from scratch.
		for _, r := range group {
			r.res, r.err = nil, nil
		}
		now, err := g.times(ctx, tx, group)
		if err != nil {
			return err
		}
		ms := make([]*member, len(group))
		for i, r := range group {
			ms[i] = &member{p: r.p, packed: r.packed, now: now[i], ord: i}
		}
		if err := c.writeGroup(ctx, tx, ms); err != nil {
			return err
		}
		written := 0
		for i, m := range ms {
			group[i].res, group[i].err = m.res, m.err
			if m.err == nil {
				written++
			}
		}
		if written > 0 {
			crashpoint.Hit("commit.tx")
		}
		return nil
	})
	if err != nil {
		for _, r := range group {
			r.res, r.err = nil, err
		}
		return
	}
	g.txs.Add(1)
	g.commits.Add(int64(len(group)))
}

// writeGroup writes the members inside tx; each ends with its res or err.
// An error returned is the transaction's.
func (c *Core) writeGroup(ctx context.Context, tx Tx, ms []*member) error {
	// A lone commit needs no savepoint: on an error the whole transaction
	// is rolled back, which is all it wrote (and PostgreSQL may run it
	// again after a deadlock). That spares the common case, workers that
	// mostly wait for a provider, two round trips.
	if len(ms) == 1 {
		// A stale member's attempt was recorded: its transaction commits.
		return c.commitMembers(ctx, tx, ms)
	}
	if !dupJobs(ms) {
		if err := tx.Defer(ctx, `SAVEPOINT `+groupSavepoint); err != nil {
			return err
		}
		err := c.commitMembers(ctx, tx, ms)
		if err == nil {
			return tx.Defer(ctx, `RELEASE `+groupSavepoint)
		}
		if _, rerr := tx.Exec(ctx, `ROLLBACK TO `+groupSavepoint); rerr != nil {
			// The statement's error first: where it asks for the
			// transaction to be run again (a serialization failure), the
			// engine runs the group again.
			return fmt.Errorf("commit group: %w; roll back: %w", err, rerr)
		}
		if err := tx.Defer(ctx, `RELEASE `+groupSavepoint); err != nil {
			return err
		}
	}
	return c.writeEach(ctx, tx, ms)
}

// writeEach writes the members one at a time, each under its own
// savepoint: a member's failure is rolled back and reported alone.
func (c *Core) writeEach(ctx context.Context, tx Tx, ms []*member) error {
	for i, m := range ms {
		sp := savepoints[i%2]
		if err := tx.Defer(ctx, `SAVEPOINT `+sp); err != nil {
			return err
		}
		if err := c.commitMembers(ctx, tx, []*member{m}); err != nil {
			if _, rerr := tx.Exec(ctx, `ROLLBACK TO `+sp); rerr != nil {
				return fmt.Errorf("commit job %d: %w; roll back: %w", m.p.JobID, err, rerr)
			}
			m.res, m.err = nil, err
		}
		if err := tx.Defer(ctx, `RELEASE `+sp); err != nil {
			return err
		}
	}
	return tx.Flush(ctx)
}

// dupJobs reports whether two members name one job: the fence of one
// multi-row statement cannot tell which of them holds the lease, so such
// a group is written one member at a time, the first one's commit fencing
// out the second as it always did.
func dupJobs(ms []*member) bool {
	seen := make(map[int64]bool, len(ms))
	for _, m := range ms {
		if seen[m.p.JobID] {
			return true
		}
		seen[m.p.JobID] = true
	}
	return false
}

// times is each member's commit time.
func (g *committer) times(ctx context.Context, tx Tx, group []*commitReq) ([]int64, error) {
	ts := make([]time.Time, len(group))
	for i, r := range group {
		ts[i] = r.p.Now
	}
	if g.cfg.Times != nil {
		return g.cfg.Times(ctx, tx, ts)
	}
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = ms(t)
	}
	return out, nil
}
