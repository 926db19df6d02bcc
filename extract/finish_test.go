package extract_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// countingStore counts the per-document lookups a run asks the store for.
type countingStore struct {
	store.Store
	knownFiles, jobStates, enqueues atomic.Int64
	statesAsked                     atomic.Int64 // job keys JobStates was asked about
}

func (s *countingStore) Enqueue(ctx context.Context, p *store.EnqueueParams) ([]store.EnqueueResult, error) {
	s.enqueues.Add(1)
	return s.Store.Enqueue(ctx, p)
}

func (s *countingStore) KnownFiles(ctx context.Context, p *store.KnownFilesParams) (map[string]store.KnownFile, error) {
	s.knownFiles.Add(1)
	return s.Store.KnownFiles(ctx, p)
}

func (s *countingStore) JobStates(ctx context.Context, p *store.JobStatesParams) (map[string]store.JobState, error) {
	s.jobStates.Add(1)
	s.statesAsked.Add(int64(len(p.Keys)))
	return s.Store.JobStates(ctx, p)
}

// rejectsMarked rejects (bad JSON) every text holding REJECT and answers
// the others.
func rejectsMarked() *fakeProvider {
	return &fakeProvider{ExtractFunc: func(_ int64, req *extract.Request) (*extract.Response, error) {
		if strings.Contains(req.Text, "REJECT") {
			return answer(`{"title":`), nil
		}
		return answer(validAnswer), nil
	}}
}

// A stat-check rerun of committed documents asks the store for their
// references and job states in one lookup, settles them there (no
// Store.Enqueue call, so no write transaction), and Finish reads no job
// state again: the stat check found them succeeded, which nothing leaves.
func TestNoopRerunReadsStatesOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	st := store.FileStat{Size: 1, MtimeNS: 2, Inode: 3, ReadOpts: "utf-8"}
	a, b := doc("a.txt", sourceText), doc("b.txt", sourceText+"page 2\n")
	a.Stat, b.Stat = &st, &st
	if s := runDocs(t, newRunner(e, alwaysValid(), "default"), a, b); s.Final.Succeeded != 2 {
		t.Fatalf("setup: %+v", s.Final)
	}

	cs := &countingStore{Store: e.Store}
	r := newRunner(e, alwaysValid(), "default")
	r.Store = cs
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	known, err := r.KnownFiles(ctx, []extract.Candidate{{Path: "a.txt", Stat: st}, {Path: "b.txt", Stat: st}})
	if err != nil {
		t.Fatal(err)
	}
	if known[0].Digest != a.Digest || known[1].Digest != b.Digest {
		t.Fatalf("stat check: %+v, want the recorded digests", known)
	}
	for i, k := range known {
		if k.Settled == nil || k.Settled.Outcome != store.EnqueueAlreadyCommitted {
			t.Fatalf("stat check %d: settled %+v, want already committed", i, k.Settled)
		}
	}
	unread := []extract.Found{{Path: "a.txt", Display: "a.txt", Digest: known[0].Digest, Unread: true, Settled: known[0].Settled},
		{Path: "b.txt", Display: "b.txt", Digest: known[1].Digest, Unread: true, Settled: known[1].Settled}}
	if err := r.Enqueue(ctx, unread); err != nil {
		t.Fatal(err)
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if s.AlreadyCommitted != 2 || s.Final.Succeeded != 2 {
		t.Errorf("rerun summary: committed %d, final %+v", s.AlreadyCommitted, s.Final)
	}
	if n, m, e := cs.knownFiles.Load(), cs.jobStates.Load(), cs.enqueues.Load(); n != 1 || m != 0 || e != 0 {
		t.Errorf("rerun asked KnownFiles %d, JobStates %d and Enqueue %d times, want 1, 0 and 0", n, m, e)
	}
}

// A first run's finish does not read back the states of the documents it
// committed itself (a commit leaves a job succeeded for good), only those
// another process can still move: here the rejected one. The counts are
// the states in the database.
func TestFinishCountsOwnCommitsUnread(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	cs := &countingStore{Store: e.Store}
	r := newRunner(e, rejectsMarked(), "default")
	r.Store = cs
	docs := []extract.Found{doc("a.txt", sourceText), doc("b.txt", sourceText+"REJECT\n"), doc("c.txt", sourceText+"page 3\n")}
	s := runDocs(t, r, docs...)
	if s.Final.Succeeded != 2 || s.Final.Rejected != 1 || s.Final.Unfinished != 0 {
		t.Errorf("final %+v, want 2 succeeded and 1 rejected", s.Final)
	}
	if n := cs.statesAsked.Load(); n != 1 {
		t.Errorf("the finish asked for %d job states, want 1 (the rejected document's)", n)
	}
	states, err := e.Store.JobStates(ctx, &store.JobStatesParams{Tenant: "default", Keys: r.Keys()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, st := range states {
		got[st.State]++
	}
	if got[store.StateSucceeded] != 2 || got[store.StateRejected] != 1 {
		t.Errorf("states in the database %v, want 2 succeeded and 1 rejected", got)
	}
}

// Finish reads again every job whose state another process can move: a
// document this run found rejected, requeued (invx retry) and committed by
// another worker before this run finished, counts as succeeded.
func TestFinishReadsMovableStatesAgain(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a, b := doc("a.txt", sourceText+"REJECT\n"), doc("b.txt", sourceText)
	if s := runDocs(t, newRunner(e, rejectsMarked(), "default"), a, b); s.Final.Rejected != 1 || s.Final.Succeeded != 1 {
		t.Fatalf("setup: %+v", s.Final)
	}

	r := newRunner(e, alwaysValid(), "default")
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, []extract.Found{a, b}); err != nil {
		t.Fatal(err)
	}
	// Meanwhile another process retries the rejected job and commits it.
	states, err := e.Store.JobStates(ctx, &store.JobStatesParams{Tenant: "default", Keys: r.Keys()})
	if err != nil {
		t.Fatal(err)
	}
	var key string
	for k, st := range states {
		if st.State == store.StateRejected {
			key = k
		}
	}
	if n, err := e.Store.Requeue(ctx, &store.RequeueParams{Tenant: "default", Keys: []string{key}, Now: time.Now()}); err != nil || n != 1 {
		t.Fatalf("requeue: %d, %v", n, err)
	}
	other := newRunner(e, alwaysValid(), "default")
	if s := runDocs(t, other); s.CommittedNow != 1 {
		t.Fatalf("other worker committed %d", s.CommittedNow)
	}

	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if s.StillNeedsReview != 1 || s.AlreadyCommitted != 1 {
		t.Errorf("enqueue counts: %+v", s)
	}
	if s.Final.Succeeded != 2 || s.Final.Rejected != 0 || s.Final.Dismissed != 0 {
		t.Errorf("final %+v, want both succeeded", s.Final)
	}
}

// The stat check trusts a reference's job without reading it only when the
// reference names this run's job: a rerun under another schema version
// (another job key) asks whether that version's job exists, and reads the
// file when it does not.
func TestStatCheckOtherSchemaVersion(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	st := store.FileStat{Size: 1, MtimeNS: 2, Inode: 3, ReadOpts: "utf-8"}
	a := doc("a.txt", sourceText)
	a.Stat = &st
	runDocs(t, newRunner(e, alwaysValid(), "default"), a)

	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		version *schema.Version
		want    string
		states  int64
	}{
		{"same version: trusted, no job read", extracttest.V1(), a.Digest, 0},
		{"other version: no job yet, read", v2, "", 1},
	}
	for _, tc := range tests {
		cs := &countingStore{Store: e.Store}
		r := newRunner(e, alwaysValid(), "default")
		r.Store, r.Schema = cs, tc.version
		if err := r.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := r.KnownFiles(ctx, []extract.Candidate{{Path: "a.txt", Stat: st}})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Digest != tc.want || cs.jobStates.Load() != tc.states {
			t.Errorf("%s: digest %q after %d state reads, want %q after %d", tc.name, got[0].Digest, cs.jobStates.Load(), tc.want, tc.states)
		}
		// Only this version's own job settles the file: another version's
		// is left to the enqueue.
		if settled := got[0].Settled != nil; settled != (tc.version == extracttest.V1()) {
			t.Errorf("%s: settled %+v", tc.name, got[0].Settled)
		}
	}
}

// claimCounting counts Claim calls: each is a write transaction.
type claimCounting struct {
	store.Store
	claims atomic.Int64
}

func (s *claimCounting) Claim(ctx context.Context, p *store.ClaimParams) ([]*store.Lease, error) {
	s.claims.Add(1)
	return s.Store.Claim(ctx, p)
}

// A rerun whose batches hold nothing to claim (committed documents) does
// not wake the working loop: Work claims when it starts and when the feed
// ends, not per batch (a write transaction each, to find nothing).
func TestRerunBatchesDoNotWakeWork(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	a, b := doc("a.txt", sourceText), doc("b.txt", sourceText+"page 2\n")
	if s := runDocs(t, newRunner(e, alwaysValid(), "default"), a, b); s.Final.Succeeded != 2 {
		t.Fatalf("setup: %+v", s.Final)
	}
	cs := &claimCounting{Store: e.Store}
	r := newRunner(e, alwaysValid(), "default")
	r.Store = cs
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	done := r.Feed()
	worked := make(chan error, 1)
	go func() { worked <- r.Work(ctx) }()
	waitFor := func(n int64) bool {
		t.Helper()
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if cs.claims.Load() >= n {
				return true
			}
		}
		return false
	}
	if !waitFor(1) {
		t.Fatal("Work never claimed")
	}
	for _, d := range []extract.Found{a, b} {
		if err := r.Enqueue(ctx, []extract.Found{d}); err != nil {
			t.Fatal(err)
		}
		if waitFor(2) {
			t.Fatalf("a batch of a committed document woke Work: %d claims", cs.claims.Load())
		}
	}
	done(nil)
	if err := <-worked; err != nil {
		t.Fatal(err)
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	// One claim when Work starts, one when the feed ends; none per batch.
	if s.AlreadyCommitted != 2 || s.Final.Succeeded != 2 || cs.claims.Load() != 2 {
		t.Errorf("rerun: already committed %d, final %+v after %d claims, want 2, 2 succeeded, 2 claims",
			s.AlreadyCommitted, s.Final, cs.claims.Load())
	}
}
