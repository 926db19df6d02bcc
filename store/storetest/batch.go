package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// The batch tests (issue 18): a batch is recorded with its jobs' leases,
// every batch write is fenced by the batch token, and its answers commit
// under the items' job tokens like any worker's.

// hold is how long a batch keeps its jobs in these tests (the providers'
// completion window and a margin).
const hold = 25 * time.Hour

// customID names a lease's request the way extract.BatchCustomID does.
func customID(l *store.Lease) string { return fmt.Sprintf("%s-%d", l.JobKey[:56], l.AttemptNo) }

func createBatch(t *testing.T, s store.Store, owner string, now time.Time, ls ...*store.Lease) *store.CreateBatchResult {
	t.Helper()
	items := make([]store.BatchItemInput, len(ls))
	for i, l := range ls {
		items[i] = store.BatchItemInput{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID, CustomID: customID(l)}
	}
	res, err := s.CreateBatch(context.Background(), &store.CreateBatchParams{Provider: "openai", Model: "gpt-test", RunID: "run-b",
		Owner: owner, LeaseFor: time.Minute, HoldUntil: now.Add(hold), Items: items, Now: now})
	noErr(t, "create batch", err)
	return res
}

func getBatch(t *testing.T, s store.Store, p *store.GetBatchParams) *store.Batch {
	t.Helper()
	b, err := s.GetBatch(context.Background(), p)
	noErr(t, "get batch", err)
	return b
}

func claimBatches(t *testing.T, s store.Store, owner string, now time.Time) []*store.Batch {
	t.Helper()
	bs, err := s.ClaimBatches(context.Background(), &store.ClaimBatchesParams{Owner: owner, LeaseFor: time.Minute,
		HoldUntil: now.Add(hold), Now: now})
	noErr(t, "claim batches", err)
	return bs
}

func batchItems(t *testing.T, s store.Store, id int64, customIDs ...string) []*store.BatchItem {
	t.Helper()
	its, err := s.BatchItems(context.Background(), &store.BatchItemsParams{BatchID: id, CustomIDs: customIDs})
	noErr(t, "batch items", err)
	return its
}

func isStale(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("%s: err = %v, want ErrStaleLease", what, err)
	}
}

// batchRow is what the lease tests compare of a batch.
func batchRow(b *store.Batch) string {
	return fmt.Sprint(b.State, " remote=", b.RemoteID, " file=", b.InputFileID, " status=", b.RemoteStatus, " done=", b.Done,
		" failed=", b.Failed, " owner=", b.Owner, " token=", b.Token, " lease=", b.LeaseExpires.UTC().Format(time.TimeOnly),
		" ended=", !b.EndedAt.IsZero(), " msg=", b.Message)
}

// A batch is recorded (preparing), submitted, and taken over by another
// collector once its lease expires: the first collector's writes are then
// all fenced out and change nothing.
func testBatchLease(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta"))
	ls := claim(t, s, "t1", "w1", 10, t0)
	res := createBatch(t, s, "c1", t0, ls...)
	b := res.Batch
	eq(t, "dropped", len(res.Dropped), 0)
	eq(t, "created", fields(b.Provider, b.Model, b.RunID, b.Requests, b.Parent, b.CreatedAt.UTC()),
		fields("openai", "gpt-test", "run-b", 2, 0, t0))
	eq(t, "created batch", batchRow(b), "preparing remote= file= status= done=0 failed=0 owner=c1 token=1 lease=09:01:00 ended=false msg=")
	noErr(t, "submitted", s.SubmittedBatch(ctx, &store.SubmittedBatchParams{ID: b.ID, Token: b.Token, RemoteID: "batch_1",
		InputFileID: "file_1", Status: "validating", Now: t0.Add(time.Second)}))
	byRemote := getBatch(t, s, &store.GetBatchParams{RemoteID: "batch_1"})
	eq(t, "by remote id", byRemote.ID, b.ID)
	eq(t, "submitted at", byRemote.SubmittedAt.UTC(), t0.Add(time.Second))
	submitted := "submitted remote=batch_1 file=file_1 status=validating done=0 failed=0 owner=c1 token=1 lease=09:01:00 ended=false msg="
	eq(t, "submitted batch", batchRow(byRemote), submitted)

	eq(t, "claimable while leased", len(claimBatches(t, s, "c2", t0.Add(30*time.Second))), 0)
	taken := claimBatches(t, s, "c2", t0.Add(2*time.Minute))
	eq(t, "taken over", len(taken), 1)
	eq(t, "new lease", batchRow(taken[0]),
		"submitted remote=batch_1 file=file_1 status=validating done=0 failed=0 owner=c2 token=2 lease=09:03:00 ended=false msg=")
	eq(t, "claimable twice", len(claimBatches(t, s, "c3", t0.Add(2*time.Minute))), 0)

	// The first collector wakes up: fenced out everywhere.
	late := t0.Add(2*time.Minute + time.Second)
	_, err := s.RenewBatch(ctx, &store.RenewBatchParams{ID: b.ID, Token: 1, LeaseFor: time.Hour, RemoteStatus: "completed",
		Done: 2, Now: late})
	isStale(t, "stale renew", err)
	isStale(t, "stale submitted", s.SubmittedBatch(ctx, &store.SubmittedBatchParams{ID: b.ID, Token: 1, RemoteID: "batch_other",
		Status: "completed", Now: late}))
	isStale(t, "stale finish", s.FinishBatch(ctx, &store.FinishBatchParams{ID: b.ID, Token: 1, State: store.BatchCancelled,
		RemoteStatus: "cancelled", Message: "stale", Now: late}))
	eq(t, "after stale writes", batchRow(getBatch(t, s, &store.GetBatchParams{ID: b.ID})), batchRow(taken[0]))

	exp, err := s.RenewBatch(ctx, &store.RenewBatchParams{ID: b.ID, Token: 2, LeaseFor: time.Minute, RemoteStatus: "in_progress",
		Done: 1, Failed: 1, Now: late})
	noErr(t, "renew", err)
	eq(t, "renewed until", exp.UTC(), late.Add(time.Minute))
	eq(t, "renewed", batchRow(getBatch(t, s, &store.GetBatchParams{ID: b.ID})),
		"submitted remote=batch_1 file=file_1 status=in_progress done=1 failed=1 owner=c2 token=2 lease=09:03:01 ended=false msg=")
	for _, st := range [][]string{{store.BatchPreparing, store.BatchSubmitted}, nil} {
		bs, err := s.ListBatches(ctx, &store.ListBatchesParams{States: st})
		noErr(t, "list batches", err)
		eq(t, fmt.Sprintf("listed %v", st), len(bs), 1)
	}
	fin := store.FinishBatchParams{ID: b.ID, Token: 2, State: store.BatchCollected, RemoteStatus: "ended", Now: late}
	noErr(t, "finish", s.FinishBatch(ctx, &fin))
	noErr(t, "finish again", s.FinishBatch(ctx, &fin))
	fin.State = store.BatchFailed
	isStale(t, "finish a finished batch otherwise", s.FinishBatch(ctx, &fin))
	_, err = s.RenewBatch(ctx, &store.RenewBatchParams{ID: b.ID, Token: 2, LeaseFor: time.Minute, Now: late})
	isStale(t, "renew a finished batch", err)
	eq(t, "finished", batchRow(getBatch(t, s, &store.GetBatchParams{ID: b.ID})),
		"collected remote=batch_1 file=file_1 status=ended done=1 failed=1 owner=c2 token=2 lease=00:00:00 ended=true msg=")
	eq(t, "claimable after finish", len(claimBatches(t, s, "c3", t0.Add(time.Hour))), 0)
	open, err := s.ListBatches(ctx, &store.ListBatchesParams{States: []string{store.BatchPreparing, store.BatchSubmitted}})
	noErr(t, "list open batches", err)
	eq(t, "open after finish", len(open), 0)
	_, err = s.GetBatch(ctx, &store.GetBatchParams{RemoteID: "batch_none"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get unknown batch: err = %v, want ErrNotFound", err)
	}
}

// CreateBatch leaves out the jobs whose lease was taken over, keeps the
// others, and holds the kept ones: no claimer takes them before HoldUntil.
func testBatchDropsStale(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta"), Doc("t1", "c.txt", "gamma"))
	ls := claim(t, s, "t1", "w1", 10, t0)
	eq(t, "claimed", len(ls), 3)
	for _, l := range ls[1:] {
		_, err := s.Renew(ctx, &store.RenewParams{JobID: l.JobID, Token: l.Token, LeaseFor: time.Minute, Now: t0.Add(50 * time.Second)})
		noErr(t, "renew", err)
	}
	now := t0.Add(70 * time.Second)
	retaken := claim(t, s, "t1", "w2", 10, now)
	eq(t, "retaken", len(retaken), 1)
	eq(t, "retaken job", retaken[0].JobID, ls[0].JobID)

	res := createBatch(t, s, "c1", now, ls...)
	eq(t, "dropped", fields(res.Dropped), fields([]int64{ls[0].JobID}))
	eq(t, "requests", res.Batch.Requests, 2)
	its := batchItems(t, s, res.Batch.ID)
	eq(t, "items", len(its), 2)
	want := map[int64]bool{ls[1].JobID: true, ls[2].JobID: true}
	for _, it := range its {
		if !want[it.JobID] || !it.Held {
			t.Fatalf("item of job %d (held %v): want the kept, held jobs %v", it.JobID, it.Held, want)
		}
	}
	// w2's lease on the dropped job is untouched: it expires as it would.
	again := claim(t, s, "t1", "w3", 10, now.Add(2*time.Minute))
	eq(t, "claimable after w2's lease", len(again), 1)
	eq(t, "only the dropped job", again[0].JobID, ls[0].JobID)
	_, err := commit(s, again[0], now.Add(2*time.Minute))
	noErr(t, "commit the dropped job", err)
	eq(t, "held jobs before HoldUntil", len(claim(t, s, "t1", "w3", 10, now.Add(hold-time.Second))), 0)
	// Past HoldUntil the batch's jobs are recovered like any expired lease.
	eq(t, "held jobs after HoldUntil", len(claim(t, s, "t1", "w3", 10, now.Add(hold+time.Second))), 2)
	for _, it := range batchItems(t, s, res.Batch.ID) {
		eq(t, fmt.Sprintf("item of job %d held after recovery", it.JobID), it.Held, false)
	}
	// A batch whose every item is stale is recorded ended, never claimed.
	empty := createBatch(t, s, "c1", now.Add(hold+time.Minute), ls...)
	eq(t, "empty batch", fields(empty.Batch.State, empty.Batch.Requests, len(empty.Dropped), empty.Batch.EndedAt.IsZero()),
		fields(store.BatchCancelled, 0, 3, false))
	eq(t, "empty batch claimable", len(claimBatches(t, s, "c2", now.Add(48*time.Hour))), 1) // the first batch only
}

// ClaimBatches with HoldUntil extends the held jobs' leases: a collector
// that takes a batch over keeps its jobs from other workers.
func testBatchClaimHolds(t *testing.T, s store.Store) {
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))
	ls := claim(t, s, "t1", "w1", 1, t0)
	createBatch(t, s, "c1", t0, ls...)
	later := t0.Add(hold - time.Minute)
	eq(t, "taken over", len(claimBatches(t, s, "c2", later)), 1)
	eq(t, "held past the first HoldUntil", len(claim(t, s, "t1", "w2", 1, t0.Add(hold+time.Minute))), 0)
	eq(t, "claimable past the new HoldUntil", len(claim(t, s, "t1", "w2", 1, later.Add(hold+time.Second))), 1)
}

// BatchItems gives each item's job, whether it still holds the item's
// token, its attempt's outcome, and for held items the lease a worker would
// hold; an item's answer commits once under its token, and the attempt rows
// and stats carry the batch.
func testBatchItems(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "x.txt", "text x"), Doc("t1", "y.txt", "text y"))
	first := claim(t, s, "t1", "w0", 1, t0)[0]
	noErr(t, "retry", s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: first.JobID, Token: first.Token,
		AttemptID: first.AttemptID, State: store.StateRetryWait, NextAttemptAt: t0.Add(time.Minute),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry, InputTokens: 7, OutputTokens: 3}, Now: t0}))
	now := t0.Add(2 * time.Minute)
	ls := claim(t, s, "t1", "w1", 10, now)
	eq(t, "claimed", len(ls), 2)
	res := createBatch(t, s, "c1", now, ls...)
	byJob := map[int64]*store.Lease{}
	for _, l := range ls {
		byJob[l.JobID] = l
	}
	its := batchItems(t, s, res.Batch.ID)
	eq(t, "items", len(its), 2)
	if its[0].CustomID > its[1].CustomID {
		t.Fatalf("items not in custom id order: %s, %s", its[0].CustomID, its[1].CustomID)
	}
	for _, it := range its {
		l := byJob[it.JobID]
		if l == nil {
			t.Fatalf("item of unknown job %d", it.JobID)
		}
		eq(t, "item", fields(it.BatchID, it.CustomID, it.Tenant, it.JobKey, it.Token, it.AttemptID, it.AttemptNo, it.Held,
			it.AttemptOutcome), fields(res.Batch.ID, customID(l), "t1", l.JobKey, l.Token, l.AttemptID, l.AttemptNo, true, ""))
		if it.Lease == nil {
			t.Fatalf("held item %s has no lease", it.CustomID)
		}
		want := *l
		want.ExpiresAt, want.Recovered = now.Add(hold).UTC(), false
		got := *it.Lease
		got.ExpiresAt = got.ExpiresAt.UTC()
		eq(t, "item lease "+it.CustomID, got, want)
	}
	x, y := byJob[first.JobID], ls[0]
	if y == x {
		y = ls[1]
	}
	eq(t, "retried job's lease", fields(x.AttemptNo, x.PrevAttempts, x.PrevTokens), fields(2, 1, 10))

	// x's answer commits under its item's token, once.
	info := store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "openai", Model: "gpt-test", InputTokens: 100,
		OutputTokens: 20, BatchID: "batch_1", CustomID: customID(x), RequestID: "req_1"}
	cp := &store.CommitParams{JobID: x.JobID, Tenant: x.Tenant, JobKey: x.JobKey, Token: x.Token, AttemptID: x.AttemptID,
		RunID: "run-b", SchemaVersion: x.SchemaVersion, Result: []byte(`{"schema_version":"invoice-summary-v1"}`),
		Attempt: info, Now: now.Add(time.Hour)}
	cr, err := s.Commit(ctx, cp)
	noErr(t, "commit item", err)
	eq(t, "first commit existing", cr.Existing, false)
	_, err = s.Commit(ctx, cp)
	isStale(t, "second commit of the item", err)
	// y's line expired: back to the queue, the attempt recorded with its batch.
	noErr(t, "release y", s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: y.JobID, Token: y.Token, AttemptID: y.AttemptID,
		State: store.StateQueued, Attempt: store.AttemptInfo{Outcome: store.OutcomeReleased, Provider: "openai", InputTokens: 5,
			OutputTokens: 1, BatchID: "batch_1", CustomID: customID(y)}, Now: now.Add(time.Hour)}))

	its = batchItems(t, s, res.Batch.ID, customID(x))
	eq(t, "items by custom id", len(its), 1)
	eq(t, "committed item", fields(its[0].JobID, its[0].Held, its[0].AttemptOutcome, its[0].Lease == nil),
		fields(x.JobID, false, store.OutcomeSucceeded, true))
	its = batchItems(t, s, res.Batch.ID, customID(y))
	eq(t, "released item", fields(its[0].Held, its[0].AttemptOutcome, its[0].Lease == nil), fields(false, store.OutcomeReleased, true))

	as, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: x.JobID})
	noErr(t, "list attempts", err)
	eq(t, "attempts of x", len(as), 2)
	eq(t, "sync attempt", fields(as[0].BatchID == "", as[0].CustomID == ""), fields(true, true))
	eq(t, "batch attempt", fields(as[1].Outcome, as[1].BatchID, as[1].CustomID, as[1].RequestID, as[1].InputTokens),
		fields(store.OutcomeSucceeded, "batch_1", customID(x), "req_1", 100))

	st, err := s.Stats(ctx, &store.StatsParams{Tenant: "t1", Since: t0, Now: now.Add(time.Hour)})
	noErr(t, "stats", err)
	eq(t, "tenants", len(st), 1)
	var in, out int64
	for _, u := range st[0].Tokens {
		in, out = in+u.InputTokens, out+u.OutputTokens
	}
	eq(t, "all tokens", fields(in, out), fields(112, 24))
	eq(t, "batch tokens", fields(st[0].BatchInputTokens, st[0].BatchOutputTokens), fields(105, 21))
}

// Prune keeps the text of a job in an unfinished batch (finished by a
// synchronous repair, say) until the batch ends.
func testBatchPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))
	l := claim(t, s, "t1", "w1", 1, t0)[0]
	b := createBatch(t, s, "c1", t0, l).Batch
	_, err := commit(s, l, t0.Add(time.Minute))
	noErr(t, "commit", err)
	prune := func() int {
		t.Helper()
		r, err := s.Prune(ctx, &store.PruneParams{Before: t0.Add(48 * time.Hour)})
		noErr(t, "prune", err)
		return r.Jobs
	}
	eq(t, "pruned while the batch is open", prune(), 0)
	noErr(t, "finish batch", s.FinishBatch(ctx, &store.FinishBatchParams{ID: b.ID, Token: b.Token, State: store.BatchCollected,
		Now: t0.Add(time.Hour)}))
	eq(t, "pruned after the batch ended", prune(), 1)
	its := batchItems(t, s, b.ID)
	eq(t, "items kept", len(its), 1)
}
