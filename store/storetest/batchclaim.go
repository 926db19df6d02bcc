package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// Collectors claiming at once take each open batch exactly once, and the
// batch fence holds between them: only the holder's renewal lands.
func testBatchConcurrentCollectors(t *testing.T, s store.Store) {
	const n = 12
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("%02d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	ls := claim(t, s, "t1", "w1", n, t0)
	for _, l := range ls {
		createBatch(t, s, "submitter", t0, l)
	}
	now := t0.Add(2 * time.Minute) // the submitter's batch leases have expired
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("c%d", w)
			for {
				bs, err := s.ClaimBatches(context.Background(), &store.ClaimBatchesParams{Owner: owner, Limit: 2,
					LeaseFor: time.Minute, Now: now})
				if err != nil {
					errs <- err
					return
				}
				if len(bs) == 0 {
					return
				}
				for _, b := range bs {
					mu.Lock()
					prev, dup := seen[b.ID]
					seen[b.ID] = owner
					mu.Unlock()
					if dup {
						errs <- fmt.Errorf("batch %d claimed by %s and %s", b.ID, prev, owner)
						return
					}
					if b.Owner != owner || b.Token != 2 {
						errs <- fmt.Errorf("batch %d: owner %s token %d, want %s 2", b.ID, b.Owner, b.Token, owner)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	eq(t, "batches claimed", len(seen), n)
	bs, err := s.ListBatches(context.Background(), &store.ListBatchesParams{})
	noErr(t, "list batches", err)
	eq(t, "batches", len(bs), n)
	for i, b := range bs {
		if i > 0 && b.ID >= bs[i-1].ID {
			t.Fatalf("batches not newest first: %d after %d", b.ID, bs[i-1].ID)
		}
		eq(t, fmt.Sprintf("batch %d owner", b.ID), b.Owner, seen[b.ID])
	}
}

// A provider's batch id is recorded once: a second batch cannot adopt it
// (the unique index), and Parent and Limit are kept.
func testBatchRemoteUnique(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta"))
	ls := claim(t, s, "t1", "w1", 2, t0)
	a := createBatch(t, s, "c1", t0, ls[0]).Batch
	noErr(t, "submit a", s.SubmittedBatch(ctx, &store.SubmittedBatchParams{ID: a.ID, Token: a.Token, RemoteID: "msgbatch_1",
		Status: "in_progress", Now: t0}))
	noErr(t, "submit a again", s.SubmittedBatch(ctx, &store.SubmittedBatchParams{ID: a.ID, Token: a.Token, RemoteID: "msgbatch_1",
		Status: "in_progress", Now: t0.Add(time.Second)}))
	eq(t, "submitted at kept", getBatch(t, s, &store.GetBatchParams{ID: a.ID}).SubmittedAt.UTC(), t0)
	res, err := s.CreateBatch(ctx, &store.CreateBatchParams{Provider: "openai", Model: "gpt-test", Owner: "c1", Parent: a.ID,
		LeaseFor: time.Minute, HoldUntil: t0.Add(hold), Now: t0, Items: []store.BatchItemInput{{JobID: ls[1].JobID,
			Token: ls[1].Token, AttemptID: ls[1].AttemptID, CustomID: customID(ls[1])}}})
	noErr(t, "create b", err)
	b := res.Batch
	eq(t, "parent", b.Parent, a.ID)
	err = s.SubmittedBatch(ctx, &store.SubmittedBatchParams{ID: b.ID, Token: b.Token, RemoteID: "msgbatch_1", Now: t0})
	if err == nil || errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("second batch adopted the first's remote id: err = %v", err)
	}
	eq(t, "b still preparing", getBatch(t, s, &store.GetBatchParams{ID: b.ID}).State, store.BatchPreparing)
	eq(t, "by remote id", getBatch(t, s, &store.GetBatchParams{RemoteID: "msgbatch_1"}).ID, a.ID)
	bs, err := s.ListBatches(ctx, &store.ListBatchesParams{Limit: 1})
	noErr(t, "list batches", err)
	eq(t, "newest", fmt.Sprint(len(bs), bs[0].ID), fmt.Sprint(1, b.ID))
	bs, err = s.ListBatches(ctx, &store.ListBatchesParams{States: []string{store.BatchSubmitted}})
	noErr(t, "list submitted", err)
	eq(t, "submitted", fmt.Sprint(len(bs), bs[0].ID), fmt.Sprint(1, a.ID))
}

// An answer that comes back after the job was taken over is not committed:
// the attempt is recorded stale, with its batch, and the item reads so.
func testBatchStaleAnswer(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))
	l := claim(t, s, "t1", "w1", 1, t0)[0]
	b := createBatch(t, s, "c1", t0, l).Batch
	after := t0.Add(hold + time.Minute)
	taken := claim(t, s, "t1", "w2", 1, after)
	eq(t, "taken over after HoldUntil", len(taken), 1)
	_, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey, Token: l.Token,
		AttemptID: l.AttemptID, RunID: "run-b", SchemaVersion: l.SchemaVersion, Result: []byte(`{}`),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, InputTokens: 9, BatchID: "batch_9", CustomID: customID(l)},
		Now:     after.Add(time.Second)})
	isStale(t, "late answer", err)
	it := batchItems(t, s, b.ID)[0]
	eq(t, "late item", fields(it.Held, it.AttemptOutcome, it.Lease == nil), fields(false, store.OutcomeStaleLease, true))
	as, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: l.JobID})
	noErr(t, "list attempts", err)
	eq(t, "stale attempt", fields(as[0].Outcome, as[0].BatchID, as[0].CustomID, as[0].InputTokens),
		fields(store.OutcomeStaleLease, "batch_9", customID(l), 9))
	_, err = s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: l.JobKey})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a stale answer was committed: err = %v", err)
	}
}

// A batch of 2,000 requests (a provider chunk) is one CreateBatch: every
// item kept and held, in one transaction.
func testBatchLarge(t *testing.T, s store.Store) {
	const n = 2000
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("%04d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	ls := claim(t, s, "t1", "w1", n, t0)
	eq(t, "claimed", len(ls), n)
	start := time.Now()
	res := createBatch(t, s, "c1", t0, ls...)
	t.Logf("CreateBatch of %d items: %v", n, time.Since(start))
	eq(t, "requests", fields(res.Batch.Requests, len(res.Dropped)), fields(n, 0))
	start = time.Now()
	its := batchItems(t, s, res.Batch.ID)
	t.Logf("BatchItems of %d items: %v", n, time.Since(start))
	held := 0
	for _, it := range its {
		if it.Held && it.Lease != nil && it.Lease.Text != "" {
			held++
		}
	}
	eq(t, "held items with text", held, n)
	eq(t, "claimable while held", len(claim(t, s, "t1", "w2", n, t0.Add(time.Hour))), 0)
}

// fields renders values for one comparison, separated by spaces.
func fields(vs ...any) string { return fmt.Sprintln(vs...) }

// A batch recorded while a claimer recovers the same expired leases: each
// job ends up either in the batch (held, its lease extended) or with the
// claimer (dropped from the batch), never both, never neither.
func testBatchRacesClaim(t *testing.T, s store.Store) {
	const n = 30
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("%02d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	ls := claim(t, s, "t1", "w1", n, t0)
	now := t0.Add(2 * time.Minute) // every lease has expired, none is taken yet
	var res *store.CreateBatchResult
	claimed := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		items := make([]store.BatchItemInput, len(ls))
		for i, l := range ls {
			items[i] = store.BatchItemInput{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID, CustomID: customID(l)}
		}
		var err error
		res, err = s.CreateBatch(context.Background(), &store.CreateBatchParams{Provider: "openai", Owner: "c1",
			LeaseFor: time.Minute, HoldUntil: now.Add(hold), Items: items, Now: now})
		errs <- err
	}()
	go func() {
		defer wg.Done()
		for {
			got, err := s.Claim(context.Background(), &store.ClaimParams{Tenant: "t1", Owner: "w2", RunID: "w2", Limit: 3,
				LeaseFor: time.Minute, Now: now})
			if err != nil || len(got) == 0 {
				errs <- err
				return
			}
			for _, l := range got {
				claimed[l.JobID] = true
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		noErr(t, "race", err)
	}
	inBatch := map[int64]bool{}
	for _, it := range batchItems(t, s, res.Batch.ID) {
		inBatch[it.JobID] = true
		if !it.Held {
			t.Fatalf("job %d: in the batch but not held", it.JobID)
		}
	}
	for _, id := range res.Dropped {
		if !claimed[id] {
			t.Fatalf("job %d: dropped from the batch but not claimed", id)
		}
	}
	for _, l := range ls {
		if inBatch[l.JobID] == claimed[l.JobID] {
			t.Fatalf("job %d: in the batch %v, claimed %v", l.JobID, inBatch[l.JobID], claimed[l.JobID])
		}
	}
	t.Logf("%d jobs in the batch, %d claimed", len(inBatch), len(claimed))
}
