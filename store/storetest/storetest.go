// Package storetest is the conformance suite every store driver passes. It
// uses only the store contract, so SQLite and PostgreSQL are held to the same
// behaviour: enqueue idempotency, leases and their recovery, the fence,
// insert-or-return-existing results, held documents, the outbox, tenant
// isolation and the figures of Stats.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// OpenFunc returns a fresh, empty store for one test. The suite closes it.
type OpenFunc func(t *testing.T) store.Store

// t0 is the suite's clock origin; tests move time explicitly.
var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// Exercise runs the conformance suite against the driver that open returns.
func Exercise(t *testing.T, open OpenFunc, opts ...Option) {
	t.Helper()
	var su suite
	for _, o := range opts {
		o(&su)
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"EnqueueIsIdempotent", testEnqueueIdempotent},
		{"DuplicateTextUnderTwoPaths", testDuplicatePaths},
		{"EnqueueMixedBatchKeepsOutcomes", testEnqueueMixedBatch},
		{"KnownFilesStatFollowsDigest", testKnownFiles},
		{"KnownFilesAnswersWhatWasAsked", testKnownFilesAsked},
		{"ClaimLeasesOnce", testClaimOnce},
		{"ClaimBatchOfEveryKind", testClaimBatch},
		{"CommitAndReturnExisting", testCommit},
		{"StaleWorkerIsFenced", testStaleWorker},
		{"StaleTokenFencedWhileAnotherHoldsTheLease", testFencedWhileLeased},
		{"RenewKeepsLease", testRenew},
		{"ChangedTextIsHeld", testChangedHeld},
		{"ChangedTextProcessed", testChangedProcess},
		{"TenantsAreIsolated", testTenants},
		{"FinishAttemptStates", testFinishAttempt},
		{"RepairOpensNextAttempt", testNextAttempt},
		{"GiveBackUndoesTheClaim", testGiveBack},
		{"ConcurrentClaimers", testConcurrentClaimers},
		{"ConcurrentCommitsIsolateStale", testConcurrentCommitsIsolateStale},
		{"ReapDeadOwners", testReap},
		{"RecoveriesKeepTheAttemptBudget", testRecoveryBudget},
		{"ShadowPublishesNothing", testShadow},
		{"GetJobByPrefixAndPath", testGetJob},
		{"AcceptHeldSupersedes", testAcceptHeld},
		{"DismissAndRequeue", testDismissRequeue},
		{"OutboxClaimIsFenced", testOutboxClaim},
		{"OutboxRequeueFailed", testOutboxRequeue},
		{"OutboxKeysNeverCollide", testOutboxKeys},
		{"PruneKeepsKeys", testPrune},
		{"FairAcrossTenants", testFairness},
		{"MaxPerTenant", testMaxPerTenant},
		{"StatsSumTheWindow", testStats},
		{"SkippedRecordAndList", testSkippedRecord},
		{"SkippedDismissAndReopen", testSkippedDismiss},
		{"SkippedClearedByEnqueue", testSkippedCleared},
		{"EncodingKeptOnJob", testEncoding},
		{"FormatAndRouteKeptOnJob", testFormatRoute},
		{"DisplayPathAndFindJobs", testFindJobs},
		{"GetResultsByID", testGetResults},
		{"ListOutboxFilters", testListOutboxFilters},
		{"ClaimBySchemaVersion", testClaimBySchema},
		{"ShadowJobStaysShadow", testShadowJobStaysShadow},
		{"BatchLeaseIsFenced", testBatchLease},
		{"BatchDropsStaleItems", testBatchDropsStale},
		{"BatchClaimHoldsJobs", testBatchClaimHolds},
		{"BatchItemsCommitOnce", testBatchItems},
		{"BatchPruneKeepsOpen", testBatchPrune},
		{"BatchConcurrentCollectors", testBatchConcurrentCollectors},
		{"BatchRemoteIDOnce", testBatchRemoteUnique},
		{"BatchStaleAnswerRecorded", testBatchStaleAnswer},
		{"BatchOfTwoThousand", testBatchLarge},
		{"BatchRacesClaim", testBatchRacesClaim},
	}
	tests = append(tests, su.reviewTests()...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

// Doc builds a document with a key derived from tenant and text the way the
// pipeline does (the exact key formula is extract's business).
func Doc(tenant, path, text string) store.Document {
	d := sha256.Sum256([]byte(text))
	digest := hex.EncodeToString(d[:])
	k := sha256.Sum256([]byte(tenant + "\x00invoice-summary\x00invoice-summary-v1\x00" + digest))
	return store.Document{SourceSystem: "fs:/test", Path: path, Digest: digest, JobKey: hex.EncodeToString(k[:]), Text: text}
}

func enqueue(t *testing.T, s store.Store, tenant string, onChange store.OnChange, docs ...store.Document) []store.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(context.Background(), &store.EnqueueParams{Tenant: tenant, RunID: "run-1",
		Transformation: "invoice-summary", SchemaVersion: "invoice-summary-v1", OnChange: onChange, Docs: docs, Now: t0})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	if len(res) != len(docs) {
		t.Fatalf("enqueue returned %d results for %d docs", len(res), len(docs))
	}
	return res
}

func claim(t *testing.T, s store.Store, tenant, owner string, limit int, now time.Time) []*store.Lease {
	t.Helper()
	ls, err := s.Claim(context.Background(), &store.ClaimParams{Tenant: tenant, Owner: owner, RunID: "run-" + owner,
		Limit: limit, LeaseFor: time.Minute, Now: now})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	return ls
}

func commit(s store.Store, l *store.Lease, now time.Time, outbox ...store.OutboxInput) (*store.CommitResult, error) {
	return s.Commit(context.Background(), &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
		Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
		Result: []byte(`{"schema_version":"invoice-summary-v1"}`), Outbox: outbox,
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now})
}

func outcomes(res []store.EnqueueResult) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Outcome
	}
	return out
}

// noErr fails the test on an unexpected error. A call whose error were
// ignored leaves its zero value (an empty slice, no rows), which is exactly
// what many assertions here expect: a driver that fails the call would pass.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func eqSlice(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func state(t *testing.T, s store.Store, tenant, key string) store.JobState {
	t.Helper()
	m, err := s.JobStates(context.Background(), &store.JobStatesParams{Tenant: tenant, Keys: []string{key}})
	if err != nil {
		t.Fatalf("job states: %v", err)
	}
	return m[key]
}

func testEnqueueIdempotent(t *testing.T, s store.Store) {
	a, b := Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta")
	eqSlice(t, "first enqueue", outcomes(enqueue(t, s, "t1", store.OnChangeHold, a, b)), []string{"new", "new"})
	eqSlice(t, "second enqueue", outcomes(enqueue(t, s, "t1", store.OnChangeHold, a, b)), []string{"pending", "pending"})
	ls := claim(t, s, "t1", "w1", 10, t0)
	eq(t, "leases", len(ls), 2)
	for _, l := range ls {
		if _, err := commit(s, l, t0); err != nil {
			t.Fatal(err)
		}
	}
	eqSlice(t, "after commit", outcomes(enqueue(t, s, "t1", store.OnChangeHold, a, b)), []string{"already_committed", "already_committed"})
	eq(t, "claimable after commit", len(claim(t, s, "t1", "w1", 10, t0)), 0)
	p, err := s.Pending(context.Background(), &store.PendingParams{Tenant: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pending", p.Total(), 0)
}

func testDuplicatePaths(t *testing.T, s store.Store) {
	a, a2 := Doc("t1", "a.txt", "same"), Doc("t1", "copy/a.txt", "same")
	res := enqueue(t, s, "t1", store.OnChangeHold, a, a2)
	eqSlice(t, "outcomes", outcomes(res), []string{"new", "duplicate"})
	eq(t, "same job", res[0].JobID, res[1].JobID)
	eq(t, "claimable", len(claim(t, s, "t1", "w1", 10, t0)), 1)
}

func testClaimOnce(t *testing.T, s store.Store) {
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))
	ls := claim(t, s, "t1", "w1", 5, t0)
	eq(t, "first claim", len(ls), 1)
	eq(t, "attempt no", ls[0].AttemptNo, 1)
	if ls[0].Token <= 0 || ls[0].AttemptID <= 0 || ls[0].Text != "alpha" {
		t.Fatalf("lease = %+v", ls[0])
	}
	eq(t, "claim while leased", len(claim(t, s, "t1", "w2", 5, t0.Add(59*time.Second))), 0)
	eq(t, "state", state(t, s, "t1", ls[0].JobKey).State, store.StateRunning)
}

func testCommit(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w1", 1, t0)[0]
	cr, err := commit(s, l, t0, store.OutboxInput{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{}`)},
		store.OutboxInput{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Existing || cr.ResultID <= 0 {
		t.Fatalf("commit result = %+v", cr)
	}
	// A second commit under the same (now finished) lease must not write.
	if _, err := commit(s, l, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("second commit err = %v, want ErrStaleLease", err)
	}
	res, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "result id", res.ID, cr.ResultID)
	eq(t, "result attempt", res.AttemptID, l.AttemptID)
	ev, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "t1", JobKey: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "outbox rows", len(ev), 2)
	eq(t, "event key", ev[0].EventKey, d.JobKey+":action:a1")
	eq(t, "commit event key", ev[1].EventKey, d.JobKey+":invoice.committed")
	eq(t, "event state", ev[0].State, "pending")
	st := state(t, s, "t1", d.JobKey)
	eq(t, "state", st.State, store.StateSucceeded)
	eq(t, "state result", st.ResultID, cr.ResultID)
	atts, err := s.ListAttempts(context.Background(), &store.ListAttemptsParams{JobID: l.JobID})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "attempts", len(atts), 1)
	eq(t, "attempt outcome", atts[0].Outcome, store.OutcomeSucceeded)
}

func testStaleWorker(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	a := claim(t, s, "t1", "A", 1, t0)[0]
	// A's lease runs out; B recovers the job and commits.
	later := t0.Add(61 * time.Second)
	bl := claim(t, s, "t1", "B", 1, later)
	eq(t, "B claims", len(bl), 1)
	b := bl[0]
	if !b.Recovered || b.Token <= a.Token || b.AttemptNo != 2 {
		t.Fatalf("recovered lease = %+v (A's token %d)", b, a.Token)
	}
	bc, err := commit(s, b, later)
	if err != nil {
		t.Fatal(err)
	}
	// A wakes up and tries to commit: rejected, nothing changes.
	if _, err := commit(s, a, later.Add(time.Second), store.OutboxInput{ActionID: "x", Kind: "k", Payload: []byte(`{}`)}); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("stale commit err = %v, want ErrStaleLease", err)
	}
	res, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "result id", res.ID, bc.ResultID)
	eq(t, "result attempt", res.AttemptID, b.AttemptID)
	ev, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "list outbox", err)
	eq(t, "outbox rows", len(ev), 0)
	atts, err := s.ListAttempts(context.Background(), &store.ListAttemptsParams{JobID: a.JobID})
	noErr(t, "list attempts", err)
	eq(t, "attempts", len(atts), 2)
	eq(t, "A's attempt", atts[0].Outcome, store.OutcomeStaleLease)
	eq(t, "B's attempt", atts[1].Outcome, store.OutcomeSucceeded)
	job, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t1", Ref: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "lease recoveries", job.LeaseRecoveries, 1)
	// A stale FinishAttempt is fenced too.
	err = s.FinishAttempt(context.Background(), &store.FinishAttemptParams{JobID: a.JobID, Token: a.Token, AttemptID: a.AttemptID,
		State: store.StateFailed, Attempt: store.AttemptInfo{Outcome: store.OutcomeFailed}, Now: later})
	if !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("stale finish err = %v", err)
	}
	eq(t, "state", state(t, s, "t1", d.JobKey).State, store.StateSucceeded)
}

// testFencedWhileLeased: A's lease expired and B holds a live one, so the
// job is still 'running' and only the lease token tells A from B. Every
// write A makes with its old token must be refused and leave B's lease, and
// B's commit, intact. (After B has committed, state = 'running' alone would
// refuse A: that case cannot tell a missing token check.)
func testFencedWhileLeased(t *testing.T, s store.Store) {
	ctx := context.Background()
	tests := []struct {
		name string
		op   func(a *store.Lease, now time.Time) error
	}{
		{"FinishAttempt failed", func(a *store.Lease, now time.Time) error {
			return s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: a.JobID, Token: a.Token, AttemptID: a.AttemptID,
				State: store.StateFailed, Attempt: store.AttemptInfo{Outcome: store.OutcomeFailed, ErrorClass: "permanent"}, Now: now})
		}},
		{"FinishAttempt retry_wait", func(a *store.Lease, now time.Time) error {
			return s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: a.JobID, Token: a.Token, AttemptID: a.AttemptID,
				State: store.StateRetryWait, NextAttemptAt: now.Add(time.Hour),
				Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry, ErrorClass: "transient"}, Now: now})
		}},
		{"FinishAttempt queued", func(a *store.Lease, now time.Time) error {
			return s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: a.JobID, Token: a.Token, AttemptID: a.AttemptID,
				State: store.StateQueued, Attempt: store.AttemptInfo{Outcome: store.OutcomeReleased, ErrorClass: "interrupted"}, Now: now})
		}},
		{"NextAttempt", func(a *store.Lease, now time.Time) error {
			_, err := s.NextAttempt(ctx, &store.NextAttemptParams{JobID: a.JobID, Token: a.Token, AttemptID: a.AttemptID,
				RunID: "run-A", Owner: "A", Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected, Category: "unknown_field"}, Now: now})
			return err
		}},
		{"Renew", func(a *store.Lease, now time.Time) error {
			_, err := s.Renew(ctx, &store.RenewParams{JobID: a.JobID, Token: a.Token, LeaseFor: time.Hour, Now: now})
			return err
		}},
		{"Commit", func(a *store.Lease, now time.Time) error {
			_, err := commit(s, a, now)
			return err
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A tenant per case: a case that fails leaves its job behind.
			tenant := fmt.Sprintf("fenced-%d", i)
			d := Doc(tenant, "a.txt", "alpha")
			enqueue(t, s, tenant, store.OnChangeHold, d)
			a := claim(t, s, tenant, "A", 1, t0)[0]
			later := t0.Add(61 * time.Second) // A's lease has run out, B's is fresh
			bl := claim(t, s, tenant, "B", 1, later)
			eq(t, "B claims", len(bl), 1)
			b := bl[0]
			if b.JobID != a.JobID || b.Token <= a.Token {
				t.Fatalf("B's lease %+v does not take over A's %+v", b, a)
			}

			err := tt.op(a, later.Add(time.Second))
			if !errors.Is(err, store.ErrStaleLease) {
				t.Fatalf("A's %s with a stale token while B holds the lease: err = %v, want ErrStaleLease", tt.name, err)
			}
			// The error names the operation that was fenced, not another.
			if want := staleOp[tt.name]; want != "" && !strings.Contains(err.Error(), want) {
				t.Errorf("A's stale %s: error %q does not name %q", tt.name, err, want)
			}

			// Nothing moved: the job is B's, running, with B's attempts only.
			eq(t, "state", state(t, s, tenant, d.JobKey).State, store.StateRunning)
			job, err := s.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: d.JobKey})
			noErr(t, "get job", err)
			eq(t, "attempts", job.Attempts, 2)
			eq(t, "claimable while B holds the lease", len(claim(t, s, tenant, "C", 1, later.Add(2*time.Second))), 0)
			if _, err := s.Renew(ctx, &store.RenewParams{JobID: b.JobID, Token: b.Token, LeaseFor: time.Minute,
				Now: later.Add(3 * time.Second)}); err != nil {
				t.Fatalf("B's renew after A's stale %s: %v", tt.name, err)
			}
			cr, err := commit(s, b, later.Add(4*time.Second))
			if err != nil {
				t.Fatalf("B's commit after A's stale %s: %v", tt.name, err)
			}
			res, err := s.GetResult(ctx, &store.GetResultParams{Tenant: tenant, JobKey: d.JobKey})
			noErr(t, "get result", err)
			eq(t, "result id", res.ID, cr.ResultID)
			eq(t, "result attempt", res.AttemptID, b.AttemptID)
			atts, err := s.ListAttempts(ctx, &store.ListAttemptsParams{JobID: a.JobID})
			noErr(t, "list attempts", err)
			var got []string
			for _, at := range atts {
				got = append(got, fmt.Sprintf("%d:%s", at.LeaseToken, at.Outcome))
			}
			// A's attempt was closed as lease_expired by B's takeover; a
			// fenced write of A's marks it stale_lease (Renew writes none).
			aOutcome := store.OutcomeStaleLease
			if tt.name == "Renew" {
				aOutcome = store.OutcomeLeaseExpired
			}
			eqSlice(t, "attempts", got, []string{fmt.Sprintf("%d:%s", a.Token, aOutcome),
				fmt.Sprintf("%d:%s", b.Token, store.OutcomeSucceeded)})
		})
	}
}

func testRenew(t *testing.T, s store.Store) {
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))
	l := claim(t, s, "t1", "A", 1, t0)[0]
	if _, err := s.Renew(context.Background(), &store.RenewParams{JobID: l.JobID, Token: l.Token, LeaseFor: time.Minute, Now: t0.Add(50 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	eq(t, "claim after renew", len(claim(t, s, "t1", "B", 1, t0.Add(70*time.Second))), 0)
	eq(t, "claim after renewed expiry", len(claim(t, s, "t1", "B", 1, t0.Add(111*time.Second))), 1)
	if _, err := s.Renew(context.Background(), &store.RenewParams{JobID: l.JobID, Token: l.Token, LeaseFor: time.Minute, Now: t0.Add(112 * time.Second)}); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("stale renew err = %v", err)
	}
}

func commitAll(t *testing.T, s store.Store, tenant string) {
	t.Helper()
	for _, l := range claim(t, s, tenant, "w", 100, t0) {
		if _, err := commit(s, l, t0); err != nil {
			t.Fatal(err)
		}
	}
}

func testChangedHeld(t *testing.T, s store.Store) {
	old := Doc("t1", "a.txt", "version 1")
	enqueue(t, s, "t1", store.OnChangeHold, old)
	commitAll(t, s, "t1")
	changed := Doc("t1", "a.txt", "version 2")
	res := enqueue(t, s, "t1", store.OnChangeHold, changed)
	eq(t, "outcome", res[0].Outcome, store.EnqueueHeld)
	eq(t, "prev key", res[0].PrevJobKey, old.JobKey)
	eq(t, "claimable", len(claim(t, s, "t1", "w", 10, t0)), 0)
	eq(t, "state", state(t, s, "t1", changed.JobKey).State, store.StateHeld)
	// Seen again, still held; the old result stands.
	eq(t, "again", enqueue(t, s, "t1", store.OnChangeHold, changed)[0].Outcome, store.EnqueueHeld)
	if _, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: changed.JobKey}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("held job has a result: %v", err)
	}
	// The original text at the path is still known as committed.
	eq(t, "old text", enqueue(t, s, "t1", store.OnChangeHold, old)[0].Outcome, store.EnqueueAlreadyCommitted)
	// Asking for changes to be processed releases the held job.
	eq(t, "process", enqueue(t, s, "t1", store.OnChangeProcess, changed)[0].Outcome, store.EnqueueNew)
	eq(t, "released state", state(t, s, "t1", changed.JobKey).State, store.StateQueued)
	eq(t, "claimable after release", len(claim(t, s, "t1", "w", 10, t0)), 1)
}

func testChangedProcess(t *testing.T, s store.Store) {
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "version 1"))
	commitAll(t, s, "t1")
	res := enqueue(t, s, "t1", store.OnChangeProcess, Doc("t1", "a.txt", "version 2"))
	eq(t, "outcome", res[0].Outcome, store.EnqueueNew)
	eq(t, "claimable", len(claim(t, s, "t1", "w", 10, t0)), 1)
}

func testTenants(t *testing.T, s store.Store) {
	a, b := Doc("t1", "a.txt", "same text"), Doc("t2", "a.txt", "same text")
	eq(t, "t1", enqueue(t, s, "t1", store.OnChangeHold, a)[0].Outcome, store.EnqueueNew)
	eq(t, "t2", enqueue(t, s, "t2", store.OnChangeHold, b)[0].Outcome, store.EnqueueNew)
	ls := claim(t, s, "t1", "w", 10, t0)
	eq(t, "t1 claims only its own", len(ls), 1)
	eq(t, "tenant", ls[0].Tenant, "t1")
	commitAll(t, s, "t2")
	if _, err := commit(s, ls[0], t0); err != nil {
		t.Fatal(err)
	}
	r1, err1 := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: a.JobKey})
	r2, err2 := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t2", JobKey: b.JobKey})
	if err1 != nil || err2 != nil || r1.ID == r2.ID {
		t.Fatalf("results: %v %v %v %v", r1, err1, r2, err2)
	}
	if _, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t2", JobKey: a.JobKey}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("t2 sees t1's result: %v", err)
	}
}

func testFinishAttempt(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	next := t0.Add(30 * time.Second)
	if err := s.FinishAttempt(context.Background(), &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		State: store.StateRetryWait, NextAttemptAt: next,
		Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry, ErrorClass: "transient", HTTPStatus: 503, NextDelay: 30 * time.Second}, Now: t0}); err != nil {
		t.Fatal(err)
	}
	eq(t, "state", state(t, s, "t1", d.JobKey).State, store.StateRetryWait)
	p, err := s.Pending(context.Background(), &store.PendingParams{Tenant: "t1"})
	noErr(t, "pending", err)
	eq(t, "retry wait", p.RetryWait, 1)
	if !p.NextWake.Equal(next) {
		t.Fatalf("next wake = %v, want %v", p.NextWake, next)
	}
	eq(t, "claim before retry time", len(claim(t, s, "t1", "w", 1, t0.Add(29*time.Second))), 0)
	l2 := claim(t, s, "t1", "w", 1, next)
	eq(t, "claim at retry time", len(l2), 1)
	eq(t, "attempt no", l2[0].AttemptNo, 2)
	if err := s.FinishAttempt(context.Background(), &store.FinishAttemptParams{JobID: l2[0].JobID, Token: l2[0].Token, AttemptID: l2[0].AttemptID,
		State: store.StateRejected, Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected, ErrorClass: "rejected", Category: "unknown_field"}, Now: next}); err != nil {
		t.Fatal(err)
	}
	st := state(t, s, "t1", d.JobKey)
	eq(t, "state", st.State, store.StateRejected)
	eq(t, "category", st.Category, "unknown_field")
	eq(t, "enqueue again", enqueue(t, s, "t1", store.OnChangeHold, d)[0].Outcome, store.EnqueueNeedsReview)
	atts, err := s.ListAttempts(context.Background(), &store.ListAttemptsParams{JobID: l.JobID})
	noErr(t, "list attempts", err)
	eq(t, "attempts", len(atts), 2)
	eq(t, "first http status", atts[0].HTTPStatus, 503)
	eq(t, "first delay", atts[0].NextDelay, 30*time.Second)
	if err := s.FinishAttempt(context.Background(), &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		State: store.StateSucceeded, Now: next}); err == nil {
		t.Fatal("FinishAttempt accepted state succeeded")
	}
}

func testNextAttempt(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	next, err := s.NextAttempt(context.Background(), &store.NextAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		RunID: "r", Owner: "w", Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected, Category: "unknown_field"}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "attempt no", next.AttemptNo, 2)
	// The same answer settled again under the same lease token (a second
	// collector of a batch): the first attempt is closed, so neither a
	// second re-ask nor a commit under it gets through.
	_, err = s.NextAttempt(context.Background(), &store.NextAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		RunID: "r", Owner: "w", Attempt: store.AttemptInfo{Outcome: store.OutcomeRejected, Category: "unknown_field"}, Now: t0})
	if !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("second NextAttempt for a closed attempt: %v, want ErrStaleLease", err)
	}
	if _, err := commit(s, l, t0); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("commit under a closed attempt: %v, want ErrStaleLease", err)
	}
	l.AttemptID = next.AttemptID
	if _, err := commit(s, l, t0); err != nil {
		t.Fatal(err)
	}
	atts, err := s.ListAttempts(context.Background(), &store.ListAttemptsParams{JobID: l.JobID})
	noErr(t, "list attempts", err)
	eq(t, "attempts", len(atts), 2)
	eq(t, "first", atts[0].Outcome+"/"+atts[0].Category, "rejected/unknown_field")
	eq(t, "second", atts[1].Outcome, store.OutcomeSucceeded)
	res, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "get result", err)
	eq(t, "result attempt", res.AttemptID, next.AttemptID)
}

func testConcurrentClaimers(t *testing.T, s store.Store) {
	const n = 40
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("%02d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("w%d", w)
			for {
				ls, err := s.Claim(context.Background(), &store.ClaimParams{Tenant: "t1", Owner: owner, RunID: owner,
					Limit: 3, LeaseFor: time.Minute, Now: t0})
				if err != nil {
					errs <- err
					return
				}
				if len(ls) == 0 {
					return
				}
				for _, l := range ls {
					mu.Lock()
					if prev, ok := seen[l.JobID]; ok {
						mu.Unlock()
						errs <- fmt.Errorf("job %d claimed by %s and %s", l.JobID, prev, owner)
						return
					}
					seen[l.JobID] = owner
					mu.Unlock()
					if _, err := commit(s, l, t0); err != nil {
						errs <- err
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
	eq(t, "jobs claimed", len(seen), n)
}

func testReap(t *testing.T, s store.Store) {
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta"))
	claim(t, s, "t1", "dead", 1, t0)
	claim(t, s, "t1", "alive", 1, t0)
	n, err := s.ReapLeases(context.Background(), &store.ReapLeasesParams{Alive: func(o string) bool { return o != "dead" }, Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "reaped", n, 1)
	ls := claim(t, s, "t1", "new", 5, t0.Add(time.Second))
	eq(t, "recovered", len(ls), 1)
	eq(t, "recovered flag", ls[0].Recovered, true)
}

func testShadow(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	_, err := s.Commit(context.Background(), &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
		Token: l.Token, AttemptID: l.AttemptID, RunID: "r", SchemaVersion: "invoice-summary-v1", Result: []byte(`{}`), Shadow: true,
		Outbox: []store.OutboxInput{{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{}`)}}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "list outbox", err)
	eq(t, "outbox rows", len(ev), 0)
	res, err := s.GetResult(context.Background(), &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "get result", err)
	eq(t, "shadow", res.Shadow, true)
}

func testGetJob(t *testing.T, s store.Store) {
	d := Doc("t1", "dir/a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	for _, ref := range []string{d.JobKey, d.JobKey[:8], "dir/a.txt"} {
		j, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t1", Ref: ref})
		if err != nil {
			t.Fatalf("get %q: %v", ref, err)
		}
		eq(t, "key of "+ref, j.JobKey, d.JobKey)
		eq(t, "text", j.SourceText, "alpha")
	}
	if _, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t2", Ref: d.JobKey}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other tenant: %v", err)
	}
	if _, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t1", Ref: "nope.txt"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// Drivers may group concurrent commits into one transaction; a stale commit
// among them must fail alone.
func testConcurrentCommitsIsolateStale(t *testing.T, s store.Store) {
	const n = 20
	var docs []store.Document
	for i := range n {
		docs = append(docs, Doc("t1", fmt.Sprintf("%02d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	a := claim(t, s, "t1", "A", n, t0)
	eq(t, "A's leases", len(a), n)
	later := t0.Add(2 * time.Minute)
	b := claim(t, s, "t1", "B", n/2, later) // B takes over half after expiry
	eq(t, "B's leases", len(b), n/2)
	taken := map[int64]bool{}
	for _, l := range b {
		taken[l.JobID] = true
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, l := range a {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = commit(s, l, later)
		}()
	}
	wg.Wait()
	for i, l := range a {
		switch {
		case taken[l.JobID] && !errors.Is(errs[i], store.ErrStaleLease):
			t.Errorf("job %d: A's commit after takeover: err = %v, want ErrStaleLease", l.JobID, errs[i])
		case !taken[l.JobID] && errs[i] != nil:
			t.Errorf("job %d: A's valid commit failed: %v", l.JobID, errs[i])
		}
	}
	committed := 0
	for _, d := range docs {
		if state(t, s, "t1", d.JobKey).State == store.StateSucceeded {
			committed++
		}
	}
	eq(t, "committed", committed, n/2)
}

func listResults(t *testing.T, s store.Store, p *store.ListResultsParams) []*store.ResultRow {
	t.Helper()
	var out []*store.ResultRow
	if err := s.ListResults(context.Background(), p, func(r *store.ResultRow) error {
		c := *r
		out = append(out, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func testAcceptHeld(t *testing.T, s store.Store) {
	old := Doc("t1", "a.txt", "version 1")
	enqueue(t, s, "t1", store.OnChangeHold, old)
	commitAll(t, s, "t1")
	changed := Doc("t1", "a.txt", "version 2")
	enqueue(t, s, "t1", store.OnChangeHold, changed)
	ctx := context.Background()
	if err := s.Dismiss(ctx, &store.JobActionParams{Tenant: "t1", JobKey: old.JobKey, Reason: "x", Now: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("dismiss a succeeded job: %v", err)
	}
	if err := s.ReleaseHeld(ctx, &store.JobActionParams{Tenant: "t1", JobKey: changed.JobKey, Now: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseHeld(ctx, &store.JobActionParams{Tenant: "t1", JobKey: changed.JobKey, Now: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second release: %v", err)
	}
	commitAll(t, s, "t1")
	all := listResults(t, s, &store.ListResultsParams{Tenant: "t1", IncludeSuperseded: true})
	eq(t, "all results", len(all), 2)
	cur := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "current results", len(cur), 1)
	eq(t, "current key", cur[0].JobKey, changed.JobKey)
	eq(t, "source path", cur[0].SourcePath, "a.txt")
	oldRes, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: old.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "superseded by", oldRes.SupersededBy, cur[0].ID)
	// The commit moved the path's reference to the new text.
	ref, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: changed.SourceSystem, Paths: []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "reference's job after accept", ref["a.txt"].JobKey, changed.JobKey)
	eq(t, "reference's digest after accept", ref["a.txt"].Digest, changed.Digest)
	// The path now points at the new text: seeing it again is a no-op.
	eq(t, "seen again", enqueue(t, s, "t1", store.OnChangeHold, changed)[0].Outcome, store.EnqueueAlreadyCommitted)
}

func testDismissRequeue(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta")
	enqueue(t, s, "t1", store.OnChangeHold, a, b)
	for _, l := range claim(t, s, "t1", "w", 2, t0) {
		if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
			State: store.StateFailed, Attempt: store.AttemptInfo{Outcome: store.OutcomeFailed, ErrorClass: "permanent"}, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Dismiss(ctx, &store.JobActionParams{Tenant: "t1", JobKey: a.JobKey, Reason: "duplicate of a paper invoice", Now: t0}); err != nil {
		t.Fatal(err)
	}
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: a.JobKey})
	noErr(t, "get job", err)
	eq(t, "dismissed", j.State+"/"+j.DismissReason, "dismissed/duplicate of a paper invoice")
	n, err := s.Requeue(ctx, &store.RequeueParams{Tenant: "t1", States: []string{store.StateFailed}, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "requeued", n, 1)
	ls := claim(t, s, "t1", "w", 5, t0)
	eq(t, "claimable", len(ls), 1)
	eq(t, "same key", ls[0].JobKey, b.JobKey)
	eq(t, "attempt no", ls[0].AttemptNo, 2)
	eq(t, "budget base", ls[0].BudgetBase, 1)
	jobs, err := s.ListJobs(ctx, &store.ListJobsParams{Tenant: "t1", States: []string{store.StateDismissed}})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "dismissed jobs", len(jobs), 1)
	eq(t, "no text in lists", jobs[0].SourceText, "")
}

func testOutboxClaim(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	if _, err := commit(s, l, t0, store.OutboxInput{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{"k":1}`)},
		store.OutboxInput{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	first, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "D1", Limit: 10, LeaseFor: time.Minute, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "claimed", len(first), 2)
	again, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "D2", Limit: 10, LeaseFor: time.Minute, Now: t0})
	noErr(t, "claim outbox while leased", err)
	eq(t, "claimed while leased", len(again), 0)
	// D1 dies; after expiry D2 takes over and delivers.
	later := t0.Add(2 * time.Minute)
	second, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "D2", Limit: 10, LeaseFor: time.Minute, Now: later})
	noErr(t, "claim outbox after expiry", err)
	eq(t, "reclaimed", len(second), 2)
	for _, e := range second {
		if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: e.ID, Token: e.Token, State: store.OutboxDelivered, Now: later}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: first[0].ID, Token: first[0].Token, State: store.OutboxFailed, Now: later}); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("stale finish: %v", err)
	}
	evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1"})
	noErr(t, "list outbox events", err)
	for _, e := range evs {
		eq(t, "state of "+e.EventKey, e.State, store.OutboxDelivered)
		eq(t, "attempts of "+e.EventKey, e.Attempts, 2)
	}
	pending, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1", Pending: true})
	noErr(t, "list pending outbox events", err)
	eq(t, "pending", len(pending), 0)
	none, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "D3", Limit: 10, LeaseFor: time.Minute, Now: later.Add(time.Hour)})
	noErr(t, "claim outbox after delivery", err)
	eq(t, "claim after delivery", len(none), 0)
}

// outboxByKey returns the tenant's outbox events by event key.
func outboxByKey(t *testing.T, s store.Store, tenant string) map[string]*store.OutboxEvent {
	t.Helper()
	evs, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: tenant})
	if err != nil {
		t.Fatalf("list outbox: %v", err)
	}
	m := map[string]*store.OutboxEvent{}
	for _, e := range evs {
		m[e.EventKey] = e
	}
	return m
}

func testOutboxRequeue(t *testing.T, s store.Store) {
	ctx := context.Background()
	requeue := func(p *store.RequeueOutboxParams) int {
		t.Helper()
		p.Now = t0
		n, err := s.RequeueOutbox(ctx, p)
		if err != nil {
			t.Fatalf("requeue outbox %+v: %v", p, err)
		}
		return n
	}
	// t1 publishes two events: one is refused (parked, with a retry time
	// that must not hold it back later), one delivered. t2 parks its own.
	var parked, delivered, other *store.OutboxEvent
	for _, tenant := range []string{"t1", "t2"} {
		enqueue(t, s, tenant, store.OnChangeHold, Doc(tenant, "a.txt", "alpha"))
		l := claim(t, s, tenant, "w", 1, t0)[0]
		if _, err := commit(s, l, t0, store.OutboxInput{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{}`)},
			store.OutboxInput{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		evs, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: tenant, Owner: "D1", Limit: 10, LeaseFor: time.Minute, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "claimed of "+tenant, len(evs), 2)
		for _, e := range evs {
			st := store.OutboxDelivered
			if e.ActionID == "a1" {
				st = store.OutboxFailed
			}
			if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: e.ID, Token: e.Token, State: st,
				NextTryAt: t0.Add(time.Hour), Error: "http 400: no such PO", Now: t0}); err != nil {
				t.Fatal(err)
			}
			switch {
			case tenant == "t2" && st == store.OutboxFailed:
				other = e
			case tenant == "t1" && st == store.OutboxFailed:
				parked = e
			case tenant == "t1":
				delivered = e
			}
		}
	}
	none, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Owner: "D2", Limit: 10, LeaseFor: time.Minute, Now: t0.Add(2 * time.Hour)})
	noErr(t, "claim outbox while parked", err)
	eq(t, "claimable while parked", len(none), 0)

	// Naming another tenant's event, or a delivered one, requeues nothing.
	eq(t, "requeued across tenants", requeue(&store.RequeueOutboxParams{Tenant: "t1", EventKeys: []string{other.EventKey}}), 0)
	eq(t, "requeued", requeue(&store.RequeueOutboxParams{Tenant: "t1",
		EventKeys: []string{parked.EventKey, delivered.EventKey, "no-such-key:a1"}}), 1)
	got := outboxByKey(t, s, "t1")
	eq(t, "delivered stays", got[delivered.EventKey].State, store.OutboxDelivered)
	eq(t, "delivered attempts", got[delivered.EventKey].Attempts, 1)
	e := got[parked.EventKey]
	eq(t, "requeued state", e.State, store.OutboxPending)
	eq(t, "attempts restart", e.Attempts, 0)
	eq(t, "next try cleared", e.NextTryAt.IsZero(), true)
	eq(t, "last error kept", e.LastError, "http 400: no such PO")
	eq(t, "other tenant stays", outboxByKey(t, s, "t2")[other.EventKey].State, store.OutboxFailed)

	// Due at once (the parked retry time is gone), with a new lease token.
	again, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "D2", Limit: 10, LeaseFor: time.Minute, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "claimable again", len(again), 1)
	eq(t, "claimed key", again[0].EventKey, parked.EventKey)
	eq(t, "first attempt of the new budget", again[0].Attempts, 1)
	eq(t, "new token", again[0].Token > parked.Token, true)
	if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: parked.ID, Token: parked.Token, State: store.OutboxFailed, Now: t0}); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("finish with the token from before the requeue: %v", err)
	}
	if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: again[0].ID, Token: again[0].Token, State: store.OutboxDelivered, Now: t0}); err != nil {
		t.Fatal(err)
	}
	eq(t, "delivered after requeue", outboxByKey(t, s, "t1")[parked.EventKey].State, store.OutboxDelivered)

	// Every failed event of a tenant, then of all tenants.
	eq(t, "t1 has none left", requeue(&store.RequeueOutboxParams{Tenant: "t1"}), 0)
	eq(t, "all tenants", requeue(&store.RequeueOutboxParams{}), 1)
	eq(t, "t2 requeued", outboxByKey(t, s, "t2")[other.EventKey].State, store.OutboxPending)
	eq(t, "nothing left", requeue(&store.RequeueOutboxParams{}), 0)
}

func testPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := Doc("t1", "a.txt", "alpha text")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	commitAll(t, s, "t1")
	dry, err := s.Prune(ctx, &store.PruneParams{Before: t0.Add(time.Hour), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "dry run jobs", dry.Jobs, 1)
	eq(t, "dry run bytes", dry.TextBytes, int64(len("alpha text")))
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: d.JobKey})
	noErr(t, "get job", err)
	eq(t, "text after dry run", j.SourceText, "alpha text")
	none, err := s.Prune(ctx, &store.PruneParams{Before: t0.Add(-time.Hour)})
	noErr(t, "prune", err)
	eq(t, "nothing older", none.Jobs, 0)
	if _, err := s.Prune(ctx, &store.PruneParams{Before: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	j, err = s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: d.JobKey})
	noErr(t, "get job", err)
	eq(t, "text after prune", j.SourceText, "")
	eq(t, "still committed", enqueue(t, s, "t1", store.OnChangeHold, d)[0].Outcome, store.EnqueueAlreadyCommitted)
	if _, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey}); err != nil {
		t.Fatalf("result after prune: %v", err)
	}
}

// One tenant with a large batch must not delay small tenants: claims rotate
// across tenants with work.
func testFairness(t *testing.T, s store.Store) {
	var big []store.Document
	for i := range 200 {
		big = append(big, Doc("big", fmt.Sprintf("%03d.txt", i), fmt.Sprintf("big %d", i)))
	}
	enqueue(t, s, "big", store.OnChangeHold, big...)
	small := map[string]int{}
	for k := range 9 {
		tenant := fmt.Sprintf("small-%d", k)
		var docs []store.Document
		for i := range 3 {
			docs = append(docs, Doc(tenant, fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s %d", tenant, i)))
		}
		enqueue(t, s, tenant, store.OnChangeHold, docs...)
		small[tenant] = 3
	}
	bigDone, smallLeft := 0, 27
	for smallLeft > 0 {
		ls := claim(t, s, "", "w", 2, t0)
		if len(ls) == 0 {
			t.Fatal("nothing claimable while small tenants have work")
		}
		for _, l := range ls {
			if _, err := commit(s, l, t0); err != nil {
				t.Fatal(err)
			}
			if l.Tenant == "big" {
				bigDone++
			} else {
				smallLeft--
			}
		}
	}
	if bigDone > 20 {
		t.Fatalf("the big tenant got %d jobs before the small tenants' 27 were done", bigDone)
	}
}

func testMaxPerTenant(t *testing.T, s store.Store) {
	var docs []store.Document
	for i := range 10 {
		docs = append(docs, Doc("t1", fmt.Sprintf("%d.txt", i), fmt.Sprintf("t1 %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	ls, err := s.Claim(context.Background(), &store.ClaimParams{Owner: "w", RunID: "r", Limit: 10, LeaseFor: time.Minute,
		Now: t0, MaxPerTenant: 3})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "capped claim", len(ls), 3)
	more, err := s.Claim(context.Background(), &store.ClaimParams{Owner: "w", RunID: "r", Limit: 10, LeaseFor: time.Minute,
		Now: t0, MaxPerTenant: 3})
	noErr(t, "claim at the cap", err)
	eq(t, "at the cap", len(more), 0)
}

func testStats(t *testing.T, s store.Store) {
	ctx := context.Background()
	enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "stats a"), Doc("t1", "b.txt", "stats b"))
	enqueue(t, s, "t2", store.OnChangeHold, Doc("t2", "c.txt", "stats c"))
	ls := claim(t, s, "t1", "w1", 2, t0)
	eq(t, "leases", len(ls), 2)
	l := ls[0]
	if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey, Token: l.Token,
		AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-summary-v1",
		Result: []byte(`{"schema_version":"invoice-summary-v1"}`),
		Outbox: []store.OutboxInput{{ActionID: "invoice.committed", Kind: "invoice.committed", Payload: []byte(`{}`)}},
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "openai", Model: "gpt",
			InputTokens: 100, OutputTokens: 10},
		Now: t0.Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginRun(ctx, &store.BeginRunParams{ID: "run-stats", Tenant: "t1", Command: "run", Owner: "w1",
		StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, &store.FinishRunParams{ID: "run-stats", Status: "completed", FinishedAt: t0.Add(time.Second),
		Summary: []byte(`{"files_seen": 2, "duplicates_suppressed": 1}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Stats(ctx, &store.StatsParams{Since: t0.Add(-time.Hour), Now: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "tenants", len(got), 2)
	t1, t2 := got[0], got[1]
	eq(t, "first tenant", t1.Tenant, "t1")
	eq(t, "t1 jobs", fmt.Sprint(t1.JobsByState), fmt.Sprint(map[string]int{store.StateRunning: 1, store.StateSucceeded: 1}))
	eq(t, "t1 attempts", t1.Attempts, 2)
	eq(t, "t1 attempts by outcome", fmt.Sprint(t1.AttemptsByOutcome),
		fmt.Sprint(map[string]int{"in_flight": 1, store.OutcomeSucceeded: 1}))
	eq(t, "t1 commits", t1.Commits, 1)
	eq(t, "t1 commit latency p50", t1.CommitLatencyP50, 2*time.Second)
	eq(t, "t1 commit latency p95", t1.CommitLatencyP95, 2*time.Second)
	eq(t, "t1 documents seen", t1.DocumentsSeen, 2)
	eq(t, "t1 duplicates", t1.Duplicates, 1)
	eq(t, "t1 tokens", fmt.Sprint(t1.Tokens), fmt.Sprint([]store.TokenUsage{{Attempts: 1},
		{Provider: "openai", Model: "gpt", Attempts: 1, InputTokens: 100, OutputTokens: 10}}))
	eq(t, "t1 outbox pending", t1.OutboxPending, 1)
	eq(t, "t1 oldest queued", t1.OldestQueued.IsZero(), true)
	eq(t, "t2 jobs", fmt.Sprint(t2.JobsByState), fmt.Sprint(map[string]int{store.StateQueued: 1}))
	eq(t, "t2 oldest queued", t2.OldestQueued.Equal(t0), true)
	eq(t, "t2 tokens", len(t2.Tokens), 0)
}

func recordSkipped(t *testing.T, s store.Store, tenant, path, reason string, size int64, run string, now time.Time) {
	t.Helper()
	if err := s.RecordSkipped(context.Background(), &store.RecordSkippedParams{Tenant: tenant, SourceSystem: "fs:/test",
		RunID: run, Path: path, Reason: reason, Detail: reason + " detail", Size: size, Now: now}); err != nil {
		t.Fatalf("record skipped %s/%s: %v", tenant, path, err)
	}
}

// skippedPaths lists open skipped inputs as "tenant/path reason size run".
func skippedPaths(t *testing.T, s store.Store, p *store.ListSkippedParams) []string {
	t.Helper()
	in, err := s.ListSkipped(context.Background(), p)
	if err != nil {
		t.Fatalf("list skipped %+v: %v", p, err)
	}
	out := make([]string, len(in))
	for i, x := range in {
		out[i] = fmt.Sprintf("%s/%s %s %d %s", x.Tenant, x.Path, x.Reason, x.Size, x.RunID)
	}
	return out
}

func testSkippedRecord(t *testing.T, s store.Store) {
	recordSkipped(t, s, "t1", "b.txt", "binary", 10, "run-1", t0)
	recordSkipped(t, s, "t2", "a.txt", "not_utf8", 20, "run-1", t0.Add(time.Second))
	recordSkipped(t, s, "t1", "a.txt", "too_large", 30, "run-1", t0.Add(2*time.Second))
	eqSlice(t, "t1", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t1"}),
		[]string{"t1/b.txt binary 10 run-1", "t1/a.txt too_large 30 run-1"})
	eqSlice(t, "t2", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t2"}), []string{"t2/a.txt not_utf8 20 run-1"})
	eqSlice(t, "t3", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t3"}), nil)
	eqSlice(t, "all tenants", skippedPaths(t, s, &store.ListSkippedParams{AllTenants: true}),
		[]string{"t1/b.txt binary 10 run-1", "t2/a.txt not_utf8 20 run-1", "t1/a.txt too_large 30 run-1"})
	eqSlice(t, "limit", skippedPaths(t, s, &store.ListSkippedParams{AllTenants: true, Limit: 1}), []string{"t1/b.txt binary 10 run-1"})

	// Skipped again by a later run, for another reason: one row, updated,
	// first seen kept.
	recordSkipped(t, s, "t1", "b.txt", "unreadable", 11, "run-2", t0.Add(time.Hour))
	in, err := s.ListSkipped(context.Background(), &store.ListSkippedParams{Tenant: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "rows", len(in), 2)
	b := in[0]
	eq(t, "path", b.Path, "b.txt")
	eq(t, "source system", b.SourceSystem, "fs:/test")
	eq(t, "reason", b.Reason, "unreadable")
	eq(t, "detail", b.Detail, "unreadable detail")
	eq(t, "size", b.Size, int64(11))
	eq(t, "run", b.RunID, "run-2")
	eq(t, "first seen", b.FirstSeen.Equal(t0), true)
	eq(t, "last seen", b.LastSeen.Equal(t0.Add(time.Hour)), true)
}

func testSkippedDismiss(t *testing.T, s store.Store) {
	ctx := context.Background()
	dismiss := func(tenant, path string) error {
		return s.DismissSkipped(ctx, &store.DismissSkippedParams{Tenant: tenant, SourceSystem: "fs:/test", Path: path,
			Reason: "scanned copy, entered by hand", Now: t0.Add(time.Minute)})
	}
	recordSkipped(t, s, "t1", "a.txt", "binary", 10, "run-1", t0)
	recordSkipped(t, s, "t2", "a.txt", "binary", 10, "run-1", t0)
	// Another tenant's dismissal, or one of an unknown path, closes nothing.
	if err := dismiss("t3", "a.txt"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("dismiss in another tenant: %v, want ErrNotFound", err)
	}
	if err := dismiss("t1", "nope.txt"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("dismiss an unknown path: %v, want ErrNotFound", err)
	}
	if err := dismiss("t1", "a.txt"); err != nil {
		t.Fatal(err)
	}
	eqSlice(t, "t1 after dismiss", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t1"}), nil)
	eqSlice(t, "t2 untouched", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t2"}), []string{"t2/a.txt binary 10 run-1"})
	if err := dismiss("t1", "a.txt"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second dismiss: %v, want ErrNotFound", err)
	}
	// Skipped again: open again.
	recordSkipped(t, s, "t1", "a.txt", "too_large", 99, "run-2", t0.Add(time.Hour))
	eqSlice(t, "t1 after a new skip", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t1"}), []string{"t1/a.txt too_large 99 run-2"})
	if err := dismiss("t1", "a.txt"); err != nil {
		t.Fatalf("dismiss the reopened skip: %v", err)
	}
}

func testSkippedCleared(t *testing.T, s store.Store) {
	recordSkipped(t, s, "t1", "a.txt", "not_utf8", 10, "run-1", t0)
	recordSkipped(t, s, "t1", "b.txt", "not_utf8", 10, "run-1", t0)
	recordSkipped(t, s, "t2", "a.txt", "not_utf8", 10, "run-1", t0)
	if err := s.RecordSkipped(context.Background(), &store.RecordSkippedParams{Tenant: "t1", SourceSystem: "fs:/other",
		Path: "a.txt", Reason: "binary", RunID: "run-1", Now: t0}); err != nil {
		t.Fatal(err)
	}
	// The file was fixed: a later run reads and enqueues it.
	eq(t, "enqueue", enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "a.txt", "alpha"))[0].Outcome, store.EnqueueNew)
	eqSlice(t, "t1 after enqueue", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t1"}),
		[]string{"t1/a.txt binary 0 run-1", "t1/b.txt not_utf8 10 run-1"})
	in, err := s.ListSkipped(context.Background(), &store.ListSkippedParams{Tenant: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "other source system stays", in[0].SourceSystem, "fs:/other")
	eqSlice(t, "other tenant stays", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t2"}), []string{"t2/a.txt not_utf8 10 run-1"})
	// Any outcome counts: the text is known already (a duplicate of a.txt).
	eq(t, "enqueue duplicate", enqueue(t, s, "t1", store.OnChangeHold, Doc("t1", "b.txt", "alpha"))[0].Outcome, store.EnqueueDuplicate)
	eqSlice(t, "t1 after duplicate", skippedPaths(t, s, &store.ListSkippedParams{Tenant: "t1"}), []string{"t1/a.txt binary 0 run-1"})
}

// The decoding a document was read with is kept on the job it created; the
// first one wins (a twin in another encoding is the same job), and a
// document without one reads back empty.
func testEncoding(t *testing.T, s store.Store) {
	cp := Doc("t1", "cp.txt", "Müller GmbH")
	cp.Encoding = "windows-1252"
	twin := Doc("t1", "utf.txt", "Müller GmbH")
	twin.Encoding = "utf-8"
	plain := Doc("t1", "plain.txt", "Acme Ltd")
	eqSlice(t, "outcomes", outcomes(enqueue(t, s, "t1", store.OnChangeHold, cp, twin, plain)),
		[]string{store.EnqueueNew, store.EnqueueDuplicate, store.EnqueueNew})
	for ref, want := range map[string]string{"cp.txt": "windows-1252", cp.JobKey: "windows-1252", "plain.txt": ""} {
		j, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t1", Ref: ref})
		if err != nil {
			t.Fatalf("get job %s: %v", ref, err)
		}
		eq(t, "encoding of "+ref, j.SourceEncoding, want)
	}
	jobs, err := s.ListJobs(context.Background(), &store.ListJobsParams{Tenant: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, j := range jobs {
		got[j.SourcePath] = j.SourceEncoding
	}
	eq(t, "listed encoding", fmt.Sprint(got), fmt.Sprint(map[string]string{"cp.txt": "windows-1252", "plain.txt": ""}))
}

// Whatever ids a provider gives its action items, every event of a commit
// gets its own key: none is dropped as a duplicate.
func testOutboxKeys(t *testing.T, s store.Store) {
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	evs := []store.OutboxInput{
		{ActionID: "invoice.committed", Kind: "verify_purchase_order", Payload: []byte(`{"n":1}`)},
		{ActionID: "x", Kind: "review_tax", Payload: []byte(`{"n":2}`)},
		{ActionID: "action:x", Kind: "contact_supplier", Payload: []byte(`{"n":3}`)},
		{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(`{"n":4}`)},
	}
	if _, err := commit(s, l, t0, evs...); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "t1", JobKey: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.EventKey[len(d.JobKey):]+" "+e.ActionID+" "+e.Kind+" "+string(e.Payload))
	}
	eqSlice(t, "events", keys, []string{
		`:action:invoice.committed invoice.committed verify_purchase_order {"n":1}`,
		`:action:x x review_tax {"n":2}`,
		`:action:action:x action:x contact_supplier {"n":3}`,
		`:invoice.committed invoice.committed invoice.committed {"n":4}`,
	})
}

// Leases lost to crashed or stalled workers do not use up the job's
// provider-attempt budget (AttemptNo - BudgetBase); they are counted apart
// (Recoveries), and both budgets start again when a person requeues the job.
func testRecoveryBudget(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := Doc("t1", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	type budget struct{ attemptNo, inBudget, recoveries int }
	of := func(l *store.Lease) budget { return budget{l.AttemptNo, l.AttemptNo - l.BudgetBase, l.Recoveries} }
	now := t0
	var l *store.Lease
	for i := range 4 { // a first lease, then three takeovers of expired ones
		ls := claim(t, s, "t1", fmt.Sprintf("crashed-%d", i), 1, now)
		eq(t, fmt.Sprintf("claim %d", i), len(ls), 1)
		l = ls[0]
		eq(t, fmt.Sprintf("claim %d", i), of(l), budget{i + 1, 1, i})
		eq(t, fmt.Sprintf("claim %d recovered", i), l.Recovered, i > 0)
		now = now.Add(2 * time.Minute)
	}
	// The fourth holder reaches the provider: a transient failure.
	if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		State: store.StateRetryWait, NextAttemptAt: now, Attempt: store.AttemptInfo{Outcome: store.OutcomeRetry}, Now: now}); err != nil {
		t.Fatal(err)
	}
	l = claim(t, s, "t1", "w", 1, now)[0]
	eq(t, "after a provider attempt", of(l), budget{5, 2, 3})
	job, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: d.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "lease recoveries", job.LeaseRecoveries, 3)
	eq(t, "attempts", job.Attempts, 5)
	if err := s.FinishAttempt(ctx, &store.FinishAttemptParams{JobID: l.JobID, Token: l.Token, AttemptID: l.AttemptID,
		State: store.StateFailed, Attempt: store.AttemptInfo{Outcome: store.OutcomeFailed}, Now: now}); err != nil {
		t.Fatal(err)
	}
	// A person requeues it: fresh budgets for both.
	if n, err := s.Requeue(ctx, &store.RequeueParams{Tenant: "t1", Keys: []string{d.JobKey}, Now: now}); err != nil || n != 1 {
		t.Fatalf("requeue: %d, %v", n, err)
	}
	eq(t, "after requeue", of(claim(t, s, "t1", "crashed-again", 1, now)[0]), budget{6, 1, 0})
	eq(t, "recovered after requeue", of(claim(t, s, "t1", "w", 1, now.Add(2*time.Minute))[0]), budget{7, 1, 1})
}

// Two nightly folders hold the same relative name with different texts: the
// source identity (source system, relative path) stays as it was, the
// display path tells them apart, and FindJobs lists every job a reference
// may mean, by exact path or by prefix (for completion), per tenant.
func testFindJobs(t *testing.T, s store.Store) {
	ctx := context.Background()
	a := Doc("t1", "a.txt", "alpha night 1")
	a.SourceSystem, a.DisplayPath = "fs:/in/night1", "in/night1/a.txt"
	b := Doc("t1", "a.txt", "alpha night 2")
	b.SourceSystem, b.DisplayPath = "fs:/in/night2", "in/night2/a.txt"
	old := Doc("t1", "old.txt", "enqueued before display paths")
	other := Doc("t2", "a.txt", "alpha night 1")
	other.DisplayPath = "in/night1/a.txt"
	enqueue(t, s, "t1", store.OnChangeHold, a, b, old)
	enqueue(t, s, "t2", store.OnChangeHold, other)

	keys := func(jobs []*store.Job) []string {
		out := make([]string, len(jobs))
		for i, j := range jobs {
			out[i] = j.JobKey
		}
		return out
	}
	find := func(p store.FindJobsParams) []*store.Job {
		t.Helper()
		jobs, err := s.FindJobs(ctx, &p)
		if err != nil {
			t.Fatalf("find %+v: %v", p, err)
		}
		return jobs
	}
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: a.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "display path", j.DisplayPath, "in/night1/a.txt")
	eq(t, "source path", j.SourcePath, "a.txt")

	// Newest first.
	eqSlice(t, "jobs at a.txt", keys(find(store.FindJobsParams{Tenant: "t1", Path: "a.txt"})), []string{b.JobKey, a.JobKey})
	eqSlice(t, "jobs at in/night2/a.txt", keys(find(store.FindJobsParams{Tenant: "t1", Path: "in/night2/a.txt"})), []string{b.JobKey})
	eqSlice(t, "jobs at old.txt", keys(find(store.FindJobsParams{Tenant: "t1", Path: "old.txt"})), []string{old.JobKey})
	eq(t, "old job's display path", find(store.FindJobsParams{Tenant: "t1", Path: "old.txt"})[0].DisplayPath, "")
	eq(t, "no match", len(find(store.FindJobsParams{Tenant: "t1", Path: "in/night3/a.txt"})), 0)
	eq(t, "held only", len(find(store.FindJobsParams{Tenant: "t1", Path: "a.txt", States: []string{store.StateHeld}})), 0)
	eq(t, "queued", len(find(store.FindJobsParams{Tenant: "t1", Path: "a.txt", States: []string{store.StateQueued}})), 2)

	// Prefixes: of a display path, of a key; capped; per tenant.
	eqSlice(t, "prefix in/night1/", keys(find(store.FindJobsParams{Tenant: "t1", Prefix: "in/night1/"})), []string{a.JobKey})
	eqSlice(t, "prefix in/", keys(find(store.FindJobsParams{Tenant: "t1", Prefix: "in/"})), []string{a.JobKey, b.JobKey})
	eqSlice(t, "key prefix", keys(find(store.FindJobsParams{Tenant: "t1", Prefix: b.JobKey[:3]})), []string{b.JobKey})
	eq(t, "limit", len(find(store.FindJobsParams{Tenant: "t1", Prefix: "", Limit: 2})), 2)
	eq(t, "everything", len(find(store.FindJobsParams{Tenant: "t1", Prefix: ""})), 3)
	eq(t, "other tenant", len(find(store.FindJobsParams{Tenant: "t2", Prefix: "in/"})), 1)
	eq(t, "no prefix match", len(find(store.FindJobsParams{Tenant: "t1", Prefix: "in/night1/b"})), 0)

	// The export rows carry the display path too.
	commitAll(t, s, "t1")
	rows := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	paths := map[string]string{}
	for _, r := range rows {
		paths[r.JobKey] = r.DisplayPath
	}
	eq(t, "result display path", paths[a.JobKey], "in/night1/a.txt")
	eq(t, "result display path (old)", paths[old.JobKey], "")
}

func testGetResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	d1, d2 := Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta")
	enqueue(t, s, "t1", store.OnChangeHold, d1, d2)
	commitAll(t, s, "t1")
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: d1.JobKey})
	if err != nil {
		t.Fatal(err)
	}
	if j.ResultID == 0 {
		t.Fatal("committed job has no result id")
	}
	got, err := s.GetResults(ctx, &store.GetResultsParams{IDs: []int64{j.ResultID, 999999}})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "results", len(got), 1)
	eq(t, "job key", got[j.ResultID].JobKey, d1.JobKey)
	eq(t, "body", string(got[j.ResultID].JSON), `{"schema_version":"invoice-summary-v1"}`)
	none, err := s.GetResults(ctx, &store.GetResultsParams{IDs: nil})
	if err != nil || len(none) != 0 {
		t.Fatalf("no ids: %v, %v", none, err)
	}
}

// staleOp is the operation a fenced write's error must name.
var staleOp = map[string]string{
	"FinishAttempt failed": "finish attempt of job",
	"FinishAttempt retry":  "finish attempt of job",
	"FinishAttempt queued": "finish attempt of job",
	"NextAttempt":          "start next attempt of job",
	"Commit":               "commit job",
}
