package storetest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/jobstest"
)

// GroupHooks reach inside a driver for the group commit tests: what they
// check is not visible through the store contract.
type GroupHooks struct {
	// Transactions is how many group commit transactions s has committed.
	Transactions func(s store.Store) int64
	// Fail replaces the statements f picks, inside s's write
	// transactions, by with (jobstest.Wrap).
	Fail func(s store.Store, f jobstest.Fault, with string)
	// Deadlock and Serialization are statements that fail as a deadlock
	// and as a serialization failure do; Slow one that takes a few hundred
	// milliseconds, to keep the committer busy while commits queue up.
	// Empty where the engine has none: the tests that need them are
	// skipped.
	Deadlock, Serialization, Slow string
}

// GroupCommit runs the group commit tests against the driver open returns:
// concurrent commits share transactions, and within one a stale member or a
// member whose statement fails is undone alone.
func GroupCommit(t *testing.T, open OpenFunc, h GroupHooks) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store, h GroupHooks)
	}{
		{"StaleMembersFencedAlone", testGroupStale},
		{"FailedMemberUndoneAlone", testGroupFailedMember},
		{"FailedGroupStatementWrittenMemberByMember", testGroupFallback},
		{"StatementsPerGroupNotPerMember", testGroupStatements},
		{"DuplicatesInOneGroupSeeEarlierMembers", testGroupDuplicates},
		{"FailedGroupFailsEveryMember", testGroupFailedTx},
		{"FailedLoneCommitUndone", testGroupFailedAlone},
		{"DeadlockedMemberRetriedByCaller", testGroupDeadlockedMember},
		{"DeadlockedLoneCommitRunAgain", testGroupDeadlockedAlone},
		{"SerializationFailureRunsGroupAgain", testGroupSerialization},
		{"CancelAfterHandOverLearnsOutcome", testGroupCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s, h)
		})
	}
}

// groupCommits is how many commits run at once: enough that a committer
// which groups nothing is told from one that does.
const groupCommits = 48

// commitTogether commits every lease at once, each from its own goroutine,
// released together, and returns each commit's error.
func commitTogether(s store.Store, ls []*store.Lease, now time.Time) []error {
	return together(ls, func(l *store.Lease) error {
		_, err := commit(s, l, now, store.OutboxInput{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{}`)})
		return err
	})
}

// together runs fn on every lease at once, each from its own goroutine,
// released together, and returns each call's error.
func together(ls []*store.Lease, fn func(l *store.Lease) error) []error {
	errs := make([]error, len(ls))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(l)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// commitBehindBlocker is commitTogether with the committer kept busy
// first, where the engine has a Slow statement: a commit of another tenant
// whose transaction takes a few hundred milliseconds is handed over, then
// the commits of ls are released, so they are all waiting when the
// committer next looks, however loaded the machine. Without Slow it is
// commitTogether.
func commitBehindBlocker(t *testing.T, s store.Store, h GroupHooks, ls []*store.Lease, now time.Time) []error {
	t.Helper()
	return behindBlocker(t, s, h, now, func() []error { return commitTogether(s, ls, now) })
}

// behindBlocker runs fn, which commits concurrently, behind the blocker of
// commitBehindBlocker.
func behindBlocker(t *testing.T, s store.Store, h GroupHooks, now time.Time, fn func() []error) []error {
	t.Helper()
	if h.Slow == "" || h.Fail == nil {
		return fn()
	}
	enqueue(t, s, "blk", store.OnChangeHold, Doc("blk", "blocker.txt", "the blocker"))
	bl := claim(t, s, "blk", "W", 1, now)[0]
	h.Fail(s, jobstest.Once(jobstest.FinishOf(bl.AttemptID)), h.Slow)
	handed, blocked := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := s.Commit(context.Background(), &store.CommitParams{JobID: bl.JobID, Tenant: bl.Tenant, JobKey: bl.JobKey,
			Token: bl.Token, AttemptID: bl.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
			Result: []byte(`{"schema_version":"invoice-summary-v1"}`), Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded},
			Now: now, HandedOver: func() { close(handed) }})
		blocked <- err
	}()
	<-handed
	errs := fn()
	if err := <-blocked; err != nil {
		t.Fatalf("the blocker's commit: %v", err)
	}
	return errs
}

// groupSetup enqueues n documents and leases them all to worker A.
func groupSetup(t *testing.T, s store.Store, n int) []*store.Lease {
	t.Helper()
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("g%02d.txt", i), fmt.Sprintf("group text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	a := claim(t, s, "t1", "A", n, t0)
	eq(t, "A's leases", len(a), n)
	return a
}

// wantGrouped fails unless the commits since before shared transactions:
// n commits in at most n/4 transactions.
func wantGrouped(t *testing.T, h GroupHooks, s store.Store, before int64, n int) {
	t.Helper()
	txs := h.Transactions(s) - before
	if txs < 1 || txs > int64(n/4) {
		t.Fatalf("%d concurrent commits took %d group transactions, want 1 to %d: commits are not grouped", n, txs, n/4)
	}
	t.Logf("%d concurrent commits in %d transactions", n, txs)
}

// committedState is what the store holds of each job's commit: its state,
// whether it has a result, its outbox events and its attempts' outcomes.
func committedState(t *testing.T, s store.Store, l *store.Lease) string {
	t.Helper()
	ctx := context.Background()
	st := state(t, s, "t1", l.JobKey).State
	result := "no result"
	if _, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: l.JobKey}); err == nil {
		result = "result"
	} else if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get result: %v", err)
	}
	ev, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1", JobKey: l.JobKey})
	noErr(t, "list outbox", err)
	atts, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: l.JobID})
	noErr(t, "list attempts", err)
	var outs []string
	for _, a := range atts {
		outs = append(outs, fmt.Sprintf("%q", a.Outcome))
	}
	return fmt.Sprintf("%s, %s, %d events, attempts %v", st, result, len(ev), outs)
}

// wantAloneFailed checks the commits of leases ls, made together, whose
// errors are errs: the one at index bad failed as ok says (want names the
// error) and left nothing; every other one is committed.
func wantAloneFailed(t *testing.T, s store.Store, ls []*store.Lease, errs []error, bad int, want string, ok func(error) bool) {
	t.Helper()
	for i, l := range ls {
		state := `succeeded, result, 1 events, attempts ["succeeded"]`
		if i == bad {
			if !ok(errs[i]) {
				t.Errorf("failing member: err = %v, want %s", errs[i], want)
			}
			state = `running, no result, 0 events, attempts [""]`
		} else if errs[i] != nil {
			t.Errorf("job %d: commit beside a failing one failed: %v", l.JobID, errs[i])
		}
		if got := committedState(t, s, l); got != state {
			t.Errorf("job %d: %s, want %s", l.JobID, got, state)
		}
	}
}

// N commits at once, some of them by a worker whose leases were taken over:
// exactly the fresh ones are committed, each stale one is recorded
// stale_lease and leaves the new holder's lease alone, and the commits
// shared transactions.
func testGroupStale(t *testing.T, s store.Store, h GroupHooks) {
	const n = groupCommits
	a := groupSetup(t, s, n)
	later := t0.Add(2 * time.Minute)
	b := claim(t, s, "t1", "B", n/3, later) // B takes a third over after expiry
	eq(t, "B's leases", len(b), n/3)
	taken := map[int64]bool{}
	for _, l := range b {
		taken[l.JobID] = true
	}
	before := h.Transactions(s)
	errs := commitBehindBlocker(t, s, h, a, later)
	wantGrouped(t, h, s, before, n)
	for i, l := range a {
		want := `succeeded, result, 1 events, attempts ["succeeded"]`
		if taken[l.JobID] {
			if !errors.Is(errs[i], store.ErrStaleLease) {
				t.Errorf("job %d: A's commit after takeover: err = %v, want ErrStaleLease", l.JobID, errs[i])
			}
			want = `running, no result, 0 events, attempts ["stale_lease" ""]`
		} else if errs[i] != nil {
			t.Errorf("job %d: A's valid commit failed: %v", l.JobID, errs[i])
		}
		if got := committedState(t, s, l); got != want {
			t.Errorf("job %d: %s, want %s", l.JobID, got, want)
		}
	}
	// B's leases survived A's stale commits: B commits them.
	for _, l := range b {
		if _, err := commit(s, l, later); err != nil {
			t.Errorf("B's commit of job %d: %v", l.JobID, err)
		}
	}
	results := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "results", len(results), n)
}

// One member of a group fails at its last statement, after writing the
// job's state and its result: the failure undoes that member alone and is
// reported to it alone; the others are committed.
func testGroupFailedMember(t *testing.T, s store.Store, h GroupHooks) {
	const n = groupCommits
	a := groupSetup(t, s, n)
	bad := n / 2
	h.Fail(s, jobstest.FinishOf(a[bad].AttemptID), jobstest.Broken)
	before := h.Transactions(s)
	errs := commitBehindBlocker(t, s, h, a, t0.Add(time.Second))
	wantGrouped(t, h, s, before, n)
	wantAloneFailed(t, s, a, errs, bad, "its statement's error", func(err error) bool {
		return err != nil && !errors.Is(err, store.ErrStaleLease)
	})
	results := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "results", len(results), n-1)
}

// A statement that writes one table for the whole group fails once (for
// one member's row): the group is rolled back and written again member by
// member, and every member commits, once.
func testGroupFallback(t *testing.T, s store.Store, h GroupHooks) {
	const n = groupCommits
	a := groupSetup(t, s, n)
	h.Fail(s, jobstest.Once(jobstest.FinishOf(a[n/2].AttemptID)), jobstest.Broken)
	before := h.Transactions(s)
	errs := commitBehindBlocker(t, s, h, a, t0.Add(time.Second))
	wantGrouped(t, h, s, before, n)
	wantAloneFailed(t, s, a, errs, -1, "", nil)
	results := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "results", len(results), n)
}

// maxGroupStatements bounds the statements one group transaction sends
// when nothing fails, whatever its size: a savepoint and its release, the
// clock, and one statement per table (jobs twice: the fence and the link
// to the result).
const maxGroupStatements = 10

// A group's writes are one statement per table, not one per member: n
// commits in a few transactions send a few statements each.
func testGroupStatements(t *testing.T, s store.Store, h GroupHooks) {
	const n = groupCommits
	a := groupSetup(t, s, n)
	var stmts atomic.Int64
	h.Fail(s, func(string, []any) bool { stmts.Add(1); return false }, "")
	before := h.Transactions(s)
	errs := commitTogether(s, a, t0.Add(time.Second))
	wantGrouped(t, h, s, before, n)
	wantAloneFailed(t, s, a, errs, -1, "", nil)
	txs := h.Transactions(s) - before
	if got := stmts.Load(); got > maxGroupStatements*txs {
		t.Fatalf("%d commits in %d transactions sent %d statements, want at most %d per transaction", n, txs, got,
			maxGroupStatements)
	}
	t.Logf("%d commits in %d transactions sent %d statements", n, txs, stmts.Load())
}

// Commits of one invoice (same supplier and number, other texts) in one
// group are flagged as if they had committed one after another: the first
// has no possible duplicate, the k-th names the k-1 before it (up to the
// cap), never one after it.
func testGroupDuplicates(t *testing.T, s store.Store, h GroupHooks) {
	const n = 8
	a := groupSetup(t, s, n)
	res := make([]*store.CommitResult, n)
	idx := map[int64]int{}
	for i, l := range a {
		idx[l.JobID] = i
	}
	before := h.Transactions(s)
	errs := behindBlocker(t, s, h, t0.Add(time.Second), func() []error {
		return together(a, func(l *store.Lease) error {
			var err error
			res[idx[l.JobID]], err = commitReview(s, l, t0.Add(time.Second),
				&store.CommitReview{Identity: ident("", "acme", "inv-1", 100, "2026-01-01")}, committedEv)
			return err
		})
	})
	if txs := h.Transactions(s) - before; txs >= int64(n) {
		t.Fatalf("%d commits took %d transactions: not grouped", n, txs)
	}
	byResult := map[int64]int{} // result id -> its duplicates
	var counts []int
	for i := range a {
		noErr(t, "commit", errs[i])
		byResult[res[i].ResultID] = len(res[i].Reasons)
		counts = append(counts, len(res[i].Reasons))
	}
	sort.Ints(counts)
	want := []int{0, 1, 2, 3, 4, 5, 5, 5} // driver.MaxDuplicates is 5
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("possible duplicates per commit %v, want %v", counts, want)
	}
	// Each names only commits before it, which have fewer duplicates of
	// their own (the capped ones name the first five).
	for _, it := range listReview(t, s, &store.ListReviewParams{Tenant: "t1", Reason: store.ReasonPossibleDuplicate}) {
		d := duplicateDetail(t, it.Detail)
		if byResult[d.ResultID] >= byResult[it.ResultID] {
			t.Errorf("result %d (%d duplicates) names result %d (%d duplicates), committed after it",
				it.ResultID, byResult[it.ResultID], d.ResultID, byResult[d.ResultID])
		}
	}
}

// A statement of the group's own (a savepoint's RELEASE) fails in the
// middle of a group: the transaction is lost, so every member of that group
// is told so, members written before the failure included, and nothing of
// them is kept. No commit reports success without its writes.
func testGroupFailedTx(t *testing.T, s store.Store, h GroupHooks) {
	const n = groupCommits
	a := groupSetup(t, s, n)
	// The first group is usually the first commit alone, the second the
	// rest: the RELEASE of a group of 10 or more fails.
	h.Fail(s, jobstest.GroupRelease(10), jobstest.Broken)
	errs := commitTogether(s, a, t0.Add(time.Second))
	failed := 0
	for i, l := range a {
		want := `succeeded, result, 1 events, attempts ["succeeded"]`
		if errs[i] != nil {
			failed++
			want = `running, no result, 0 events, attempts [""]`
		}
		if got := committedState(t, s, l); got != want {
			t.Errorf("job %d (commit err %v): %s, want %s", l.JobID, errs[i], got, want)
		}
	}
	if failed < 10 {
		t.Fatalf("%d commits failed, want the 10 or more of the group whose RELEASE failed", failed)
	}
	t.Logf("%d of %d commits failed with their group", failed, n)
	results := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "results", len(results), n-failed)
}

// A commit alone in its group runs without a savepoint: when it fails after
// its first writes, the transaction rolled back takes them all.
func testGroupFailedAlone(t *testing.T, s store.Store, h GroupHooks) {
	a := groupSetup(t, s, 2)
	h.Fail(s, jobstest.FinishOf(a[0].AttemptID), jobstest.Broken)
	before := h.Transactions(s)
	_, err := commit(s, a[0], t0.Add(time.Second))
	if err == nil || errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("failing commit: err = %v, want its statement's error", err)
	}
	eq(t, "its state", committedState(t, s, a[0]), `running, no result, 0 events, attempts [""]`)
	_, err = commit(s, a[1], t0.Add(time.Second))
	noErr(t, "next commit", err)
	eq(t, "next state", committedState(t, s, a[1]), `succeeded, result, 0 events, attempts ["succeeded"]`)
	eq(t, "transactions committed", h.Transactions(s)-before, 1)
}

// A member of a group is chosen as a deadlock's victim, in the group's
// statement and again in its own: it fails alone with
// a transient error (the group, still holding the other members' locks,
// does not try it again), nothing of it is kept, and the caller's retry
// commits it.
func testGroupDeadlockedMember(t *testing.T, s store.Store, h GroupHooks) {
	if h.Deadlock == "" || h.Slow == "" {
		t.Skip("the engine has no deadlocks")
	}
	const n = groupCommits
	a := groupSetup(t, s, n+1)
	// A commit alone in its group is run again whole (the next test): a
	// slow first commit makes the others queue up into one group.
	blocker, a := a[0], a[1:]
	bad := n / 2
	// Both armed before any commit: the committer reads the engine.
	h.Fail(s, jobstest.FinishOf(blocker.AttemptID), h.Slow)
	// Twice: the group's statement that names it, then its own when the
	// group is written again member by member; the caller's retry below
	// is not picked.
	h.Fail(s, jobstest.Times(2, jobstest.FinishOf(a[bad].AttemptID)), h.Deadlock)
	before := h.Transactions(s)
	blocked := make(chan error, 1)
	go func() {
		_, err := commit(s, blocker, t0.Add(time.Second))
		blocked <- err
	}()
	time.Sleep(50 * time.Millisecond)
	errs := commitTogether(s, a, t0.Add(time.Second))
	noErr(t, "the slow commit", <-blocked)
	if txs := h.Transactions(s) - before; txs != 2 {
		t.Fatalf("the slow commit and the %d queued behind it took %d transactions, want 2", n, txs)
	}
	wantAloneFailed(t, s, a, errs, bad, "a transient error", store.IsTransient)
	_, err := commit(s, a[bad], t0.Add(2*time.Second))
	noErr(t, "the caller's retry", err)
	eq(t, "after the retry", committedState(t, s, a[bad]), `succeeded, result, 0 events, attempts ["succeeded"]`)
}

// A commit alone in its group is a deadlock's victim once: the engine runs
// its transaction again and the commit succeeds, once.
func testGroupDeadlockedAlone(t *testing.T, s store.Store, h GroupHooks) {
	if h.Deadlock == "" {
		t.Skip("the engine has no deadlocks")
	}
	a := groupSetup(t, s, 1)
	h.Fail(s, jobstest.Once(jobstest.FinishOf(a[0].AttemptID)), h.Deadlock)
	_, err := commit(s, a[0], t0.Add(time.Second))
	noErr(t, "commit run again", err)
	eq(t, "its state", committedState(t, s, a[0]), `succeeded, result, 0 events, attempts ["succeeded"]`)
}

// A statement of the group's own fails as a serialization failure: the
// engine runs the whole group again, from scratch, and every member
// commits once.
func testGroupSerialization(t *testing.T, s store.Store, h GroupHooks) {
	if h.Serialization == "" {
		t.Skip("the engine has no serialization failures")
	}
	const n = groupCommits
	a := groupSetup(t, s, n)
	h.Fail(s, jobstest.GroupRelease(10), h.Serialization)
	errs := commitTogether(s, a, t0.Add(time.Second))
	for i, l := range a {
		if errs[i] != nil {
			t.Errorf("job %d: commit in a group run again: %v", l.JobID, errs[i])
		}
		if got, want := committedState(t, s, l), `succeeded, result, 1 events, attempts ["succeeded"]`; got != want {
			t.Errorf("job %d: %s, want %s", l.JobID, got, want)
		}
	}
	results := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "results", len(results), n)
}

// A caller whose context is cancelled once its commit was handed to a
// group still learns the commit's outcome: it was carried out.
func testGroupCancelled(t *testing.T, s store.Store, h GroupHooks) {
	if h.Slow == "" {
		t.Skip("the engine has no slow statement")
	}
	a := groupSetup(t, s, 1)
	h.Fail(s, jobstest.FinishOf(a[0].AttemptID), h.Slow)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond) // handed over, inside its slow statement
		cancel()
	}()
	l := a[0]
	_, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
		Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
		Result:  []byte(`{"schema_version":"invoice-summary-v1"}`),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: t0.Add(time.Second)})
	if ctx.Err() == nil {
		t.Fatal("the commit ended before its context was cancelled: the statement is not slow enough to test this")
	}
	noErr(t, "commit cancelled after hand-over", err)
	// The slow statement stood in for the attempt's last write.
	eq(t, "its state", committedState(t, s, l), `succeeded, result, 0 events, attempts [""]`)
}
