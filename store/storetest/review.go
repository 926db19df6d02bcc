package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// ReopenFunc opens a second handle on the database behind s, as another
// process would (its own connections; for SQLite its own group
// committer). The suite closes it.
type ReopenFunc func(t *testing.T, s store.Store) store.Store

// Option configures Exercise.
type Option func(*suite)

type suite struct {
	reopen ReopenFunc
}

// WithReopen lets the suite race two handles on one database (commits of
// one invoice from two processes). Without it those tests are skipped.
func WithReopen(fn ReopenFunc) Option { return func(s *suite) { s.reopen = fn } }

// reviewTests are the conformance tests of the review surface (issue 14).
func (su *suite) reviewTests() []struct {
	name string
	fn   func(t *testing.T, s store.Store)
} {
	return []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"ReviewRescanIsPossibleDuplicate", testReviewRescan},
		{"CountReviewCountsWhatListReviewLists", testCountReview},
		{"ReviewNotDuplicates", testReviewNotDuplicates},
		{"ReviewConcurrentDuplicateFlaggedOnce", su.testReviewConcurrent},
		{"ReviewHeldUntilAccepted", testReviewHeldUntilAccepted},
		{"ReviewDismissCancelsHeld", testReviewDismiss},
		{"ReviewCorrectionChain", testReviewCorrectionChain},
		{"ReviewCorrectionFindsDuplicate", testReviewCorrectionDuplicate},
		{"ReviewStaleCommitWritesNoReason", testReviewStale},
		{"ReviewPolicy", testReviewPolicy},
	}
}

func i64(v int64) *int64   { return &v }
func str(v string) *string { return &v }

// ident is an identity with keys as package review would give them.
func ident(vat, name, number string, total int64, date string) *store.DocIdentity {
	return &store.DocIdentity{VATKey: vat, NameKey: name, NumberKey: number, TotalMinor: i64(total), IssueDate: str(date)}
}

var committedEv = store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(`{}`)}

func commitReview(s store.Store, l *store.Lease, now time.Time, r *store.CommitReview, outbox ...store.OutboxInput) (*store.CommitResult, error) {
	return s.Commit(context.Background(), &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
		Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-v2",
		Result: []byte(`{"schema_version":"invoice-v2"}`), Outbox: outbox, Review: r,
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now})
}

// commitDoc enqueues d for tenant, leases it and commits it with r.
func commitDoc(t *testing.T, s store.Store, tenant string, d store.Document, r *store.CommitReview) *store.CommitResult {
	t.Helper()
	enqueue(t, s, tenant, store.OnChangeHold, d)
	ls := claim(t, s, tenant, "w", 1, t0)
	if len(ls) != 1 || ls[0].JobKey != d.JobKey {
		t.Fatalf("claim %s: got %d leases", d.Path, len(ls))
	}
	res, err := commitReview(s, ls[0], t0, r, committedEv)
	noErr(t, "commit "+d.Path, err)
	return res
}

// docV2 is d's text as another schema version would key it: same digest,
// another job.
func docV2(tenant string, d store.Document) store.Document {
	k := sha256.Sum256([]byte(tenant + "\x00invoice-summary\x00invoice-v2\x00" + d.Digest))
	d.JobKey = hex.EncodeToString(k[:])
	return d
}

func listReview(t *testing.T, s store.Store, p *store.ListReviewParams) []*store.ReviewItem {
	t.Helper()
	items, err := s.ListReview(context.Background(), p)
	noErr(t, "list review", err)
	return items
}

func outboxStates(t *testing.T, s store.Store, tenant, jobKey string) map[string]string {
	t.Helper()
	evs, err := s.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: tenant, JobKey: jobKey})
	noErr(t, "list outbox", err)
	out := map[string]string{}
	for _, e := range evs {
		out[e.EventKey] = e.State
	}
	return out
}

func claimOutboxKeys(t *testing.T, s store.Store, tenant string, now time.Time) []string {
	t.Helper()
	evs, err := s.ClaimOutbox(context.Background(), &store.ClaimOutboxParams{Tenant: tenant, Owner: "d", Limit: 100,
		LeaseFor: time.Minute, Now: now})
	noErr(t, "claim outbox", err)
	keys := []string{}
	for _, e := range evs {
		keys = append(keys, e.EventKey)
	}
	return keys
}

func duplicateDetail(t *testing.T, b []byte) store.DuplicateDetail {
	t.Helper()
	var d store.DuplicateDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("duplicate detail %s: %v", b, err)
	}
	return d
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// testReviewRescan: a rescanned invoice (another text, same supplier and
// number) is flagged, its events held, and the detail names the first
// document and says the totals agree by magnitude and the dates do not.
func testReviewRescan(t *testing.T, s store.Store) {
	a, b := Doc("t1", "in/a.txt", "RE-2026-00417 5385.35"), Doc("t1", "rescan/a.txt", "RE-2026-00417 5385.35\npage 2")
	first := commitDoc(t, s, "t1", a, &store.CommitReview{Identity: ident("", "acmetools", "re2026417", 538535, "2026-11-02")})
	eqSlice(t, "first commit reasons", first.Reasons, nil)
	second := commitDoc(t, s, "t1", b, &store.CommitReview{Identity: ident("", "acmetools", "re2026417", -538535, "2026-11-03")})
	eqSlice(t, "second commit reasons", second.Reasons, []string{store.ReasonPossibleDuplicate})

	items := listReview(t, s, &store.ListReviewParams{Tenant: "t1"})
	eq(t, "open items", len(items), 1)
	it := items[0]
	eq(t, "item job", it.JobKey, b.JobKey)
	eq(t, "item result", it.ResultID, second.ResultID)
	eq(t, "item path", it.Path, "rescan/a.txt")
	eq(t, "item reason", it.Reason, store.ReasonPossibleDuplicate)
	d := duplicateDetail(t, it.Detail)
	eq(t, "duplicate of", d.JobKey, a.JobKey)
	eq(t, "duplicate path", d.Path, "in/a.txt")
	eq(t, "duplicate result", d.ResultID, first.ResultID)
	eq(t, "totals agree", ptrString(d.TotalsAgree), "true")
	eq(t, "dates agree", ptrString(d.DatesAgree), "false")

	eq(t, "first's event", outboxStates(t, s, "t1", a.JobKey)[a.JobKey+":invoice.committed"], store.OutboxPending)
	eq(t, "rescan's event", outboxStates(t, s, "t1", b.JobKey)[b.JobKey+":invoice.committed"], store.OutboxHeld)
	eq(t, "items of another reason", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1", Reason: store.ReasonIncomplete})), 0)
	eq(t, "items of another tenant", len(listReview(t, s, &store.ListReviewParams{Tenant: "t2"})), 0)
	eq(t, "items of every tenant", len(listReview(t, s, &store.ListReviewParams{AllTenants: true})), 1)

	st, err := s.Stats(context.Background(), &store.StatsParams{Tenant: "t1", Now: t0})
	noErr(t, "stats", err)
	eq(t, "stats tenants", len(st), 1)
	eq(t, "open duplicates in stats", st[0].ReviewOpen[store.ReasonPossibleDuplicate], 1)
}

// testReviewNotDuplicates: each case commits a first document and then a
// second one in a tenant of its own; only the cases that want it flag the
// second.
func testReviewNotDuplicates(t *testing.T, s store.Store) {
	tests := []struct {
		name          string
		first, second *store.DocIdentity
		sameText      bool // the second is the first's text under another schema version
		otherTenant   bool
		firstShadow   bool
		want          []string
	}{
		{name: "two suppliers, one number", first: ident("", "acme", "100", 1, "2026-01-01"),
			second: ident("", "globex", "100", 1, "2026-01-01")},
		{name: "one supplier, two numbers", first: ident("", "acme", "100", 1, "2026-01-01"),
			second: ident("", "acme", "101", 1, "2026-01-01")},
		{name: "same name, two VAT ids", first: ident("111", "acme", "100", 1, "2026-01-01"),
			second: ident("222", "acme", "100", 1, "2026-01-01")},
		{name: "same VAT id, names differ", first: ident("111", "acme", "100", 1, "2026-01-01"),
			second: ident("111", "acmeholding", "100", 1, "2026-01-01"), want: []string{store.ReasonPossibleDuplicate}},
		{name: "one VAT id missing, names equal", first: ident("111", "acme", "100", 1, "2026-01-01"),
			second: ident("", "acme", "100", 1, "2026-01-01"), want: []string{store.ReasonPossibleDuplicate}},
		{name: "same text under v1 and v2", first: ident("", "acme", "100", 1, "2026-01-01"),
			second: ident("", "acme", "100", 1, "2026-01-01"), sameText: true},
		{name: "another tenant", first: ident("", "acme", "100", 1, "2026-01-01"),
			second: ident("", "acme", "100", 1, "2026-01-01"), otherTenant: true},
		{name: "the first is a shadow", first: ident("", "acme", "100", 1, "2026-01-01"),
			second: ident("", "acme", "100", 1, "2026-01-01"), firstShadow: true},
		{name: "no number", first: ident("", "acme", "", 1, "2026-01-01"),
			second: ident("", "acme", "", 1, "2026-01-01")},
		{name: "no supplier", first: ident("", "", "100", 1, "2026-01-01"),
			second: ident("", "", "100", 1, "2026-01-01")},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t1 := fmt.Sprintf("n%d", i)
			t2 := t1
			if tc.otherTenant {
				t2 += "x"
			}
			a := Doc(t1, "a.txt", "invoice "+tc.name)
			b := Doc(t2, "b.txt", "invoice "+tc.name+", scanned again")
			if tc.sameText {
				b = docV2(t2, a)
			}
			enqueue(t, s, t1, store.OnChangeHold, a)
			l := claim(t, s, t1, "w", 1, t0)[0]
			_, err := s.Commit(context.Background(), &store.CommitParams{JobID: l.JobID, Tenant: t1, JobKey: l.JobKey,
				Token: l.Token, AttemptID: l.AttemptID, RunID: "r", SchemaVersion: "invoice-summary-v1", Result: []byte(`{}`),
				Shadow: tc.firstShadow, Review: &store.CommitReview{Identity: tc.first}, Now: t0})
			noErr(t, "commit first", err)
			got := commitDoc(t, s, t2, b, &store.CommitReview{Identity: tc.second})
			eqSlice(t, "second's reasons", got.Reasons, tc.want)
			eq(t, "open items", len(listReview(t, s, &store.ListReviewParams{Tenant: t2})), len(tc.want))
		})
	}
}

// testReviewConcurrent: two processes commit the same invoice (two texts)
// at the same moment, again and again: each time exactly one of the two is
// flagged. Without serialisation both look before either has committed
// and neither is flagged.
func (su *suite) testReviewConcurrent(t *testing.T, s store.Store) {
	if su.reopen == nil {
		t.Skip("the driver's test gives no second handle (storetest.WithReopen)")
	}
	s2 := su.reopen(t, s)
	t.Cleanup(func() { s2.Close() })
	const rounds = 20
	for i := range rounds {
		tenant := fmt.Sprintf("c%d", i)
		a, b := Doc(tenant, "a.txt", "race "+tenant), Doc(tenant, "b.txt", "race "+tenant+" rescanned")
		enqueue(t, s, tenant, store.OnChangeHold, a, b)
		ls := claim(t, s, tenant, "w", 2, t0)
		eq(t, "leases", len(ls), 2)
		r := &store.CommitReview{Identity: ident("", "acme", "inv"+tenant, 100, "2026-01-01")}
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]*store.CommitResult, 2)
		errs := make([]error, 2)
		for j, h := range []store.Store{s, s2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[j], errs[j] = commitReview(h, ls[j], t0, r, committedEv)
			}()
		}
		close(start)
		wg.Wait()
		flagged := 0
		for j := range 2 {
			noErr(t, "concurrent commit", errs[j])
			if len(results[j].Reasons) > 0 {
				flagged++
			}
		}
		if flagged != 1 {
			t.Fatalf("round %d: %d of 2 concurrent commits flagged, want exactly 1", i, flagged)
		}
	}
}

// testReviewHeldUntilAccepted: a result with an open reason has all its
// events held; no delivery claims them until the review is accepted.
func testReviewHeldUntilAccepted(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := Doc("t1", "a.txt", "no total")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	res, err := commitReview(s, l, t0, &store.CommitReview{Reasons: []store.ReviewReason{
		{Reason: store.ReasonIncomplete, Detail: []byte(`{"missing":["total_minor"]}`)}}},
		committedEv, store.OutboxInput{ActionID: "a1", Kind: "review_tax", Payload: []byte(`{}`)})
	noErr(t, "commit", err)
	eqSlice(t, "reasons", res.Reasons, []string{store.ReasonIncomplete})
	want := map[string]string{d.JobKey + ":invoice.committed": store.OutboxHeld, d.JobKey + ":action:a1": store.OutboxHeld}
	eq(t, "events", fmt.Sprint(outboxStates(t, s, "t1", d.JobKey)), fmt.Sprint(want))
	eqSlice(t, "claimed while held", claimOutboxKeys(t, s, "t1", t0.Add(time.Hour)), []string{})
	undelivered, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1", Pending: true})
	noErr(t, "list undelivered", err)
	eq(t, "held events count as undelivered", len(undelivered), 2)
	items := listReview(t, s, &store.ListReviewParams{Tenant: "t1"})
	eq(t, "items", len(items), 1)
	eq(t, "detail", string(items[0].Detail), `{"missing":["total_minor"]}`)

	acc, err := s.AcceptReview(ctx, &store.ReviewActionParams{Tenant: "t1", JobKey: d.JobKey, Actor: "clerk", Note: "paid by hand", Now: t0})
	noErr(t, "accept", err)
	eq(t, "accepted reasons", acc.Reasons, 1)
	eq(t, "released events", acc.Events, 2)
	eqSlice(t, "claimed after accept", claimOutboxKeys(t, s, "t1", t0.Add(time.Hour)),
		[]string{d.JobKey + ":invoice.committed", d.JobKey + ":action:a1"})
	eq(t, "items after accept", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1"})), 0)
	if _, err := s.AcceptReview(ctx, &store.ReviewActionParams{Tenant: "t1", JobKey: d.JobKey, Now: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second accept err = %v, want ErrNotFound", err)
	}
}

// testReviewDismiss: dismissing cancels the held events for good and
// publishes invoice.dismissed, the only event delivery then claims.
func testReviewDismiss(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := Doc("t1", "a.txt", "invoice 7"), Doc("t1", "b.txt", "invoice 7 again")
	commitDoc(t, s, "t1", a, &store.CommitReview{Identity: ident("", "acme", "7", 100, "2026-01-01")})
	claimOutboxKeys(t, s, "t1", t0) // a's event is out for delivery: not b's business
	commitDoc(t, s, "t1", b, &store.CommitReview{Identity: ident("", "acme", "7", 100, "2026-01-01")})
	dis, err := s.DismissReview(ctx, &store.ReviewActionParams{Tenant: "t1", JobKey: b.JobKey, Actor: "clerk", Note: "rescan", Now: t0})
	noErr(t, "dismiss", err)
	eq(t, "dismissed reasons", dis.Reasons, 1)
	eq(t, "cancelled events", dis.Events, 1)
	want := map[string]string{b.JobKey + ":invoice.committed": store.OutboxCancelled, b.JobKey + ":invoice.dismissed": store.OutboxPending}
	eq(t, "events", fmt.Sprint(outboxStates(t, s, "t1", b.JobKey)), fmt.Sprint(want))
	eqSlice(t, "claimed", claimOutboxKeys(t, s, "t1", t0.Add(30*time.Second)), []string{b.JobKey + ":invoice.dismissed"})
	eq(t, "items", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1"})), 0)
	if _, err := s.AcceptReview(ctx, &store.ReviewActionParams{Tenant: "t1", JobKey: b.JobKey, Now: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("accept after dismiss err = %v, want ErrNotFound", err)
	}
}

// testReviewCorrectionChain: two corrections; the latest is what GetResult,
// GetResults and ListResults give; both revisions keep who, why and what
// changed; a reason left open keeps events held, and the correction that
// settles everything releases them.
func testReviewCorrectionChain(t *testing.T, s store.Store) {
	ctx := context.Background()
	d := Doc("t1", "a.txt", "acme invoice 9, total missing")
	enqueue(t, s, "t1", store.OnChangeHold, d)
	l := claim(t, s, "t1", "w", 1, t0)[0]
	_, err := commitReview(s, l, t0, &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonIncomplete}},
		Identity: ident("", "acme", "9", 0, "2026-01-01")}, committedEv)
	noErr(t, "commit", err)

	rev1 := []byte(`{"schema_version":"invoice-v2","total_minor":538535}`)
	c1, err := s.CorrectResult(ctx, &store.CorrectParams{Tenant: "t1", JobKey: d.JobKey, Result: rev1,
		Changes: []store.FieldChange{{Field: "total_minor", Old: []byte(`null`), New: []byte(`538535`)}},
		Actor:   "ann", Reason: "total from the PDF", Now: t0.Add(time.Minute),
		Review: &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonArithmetic, Detail: []byte(`["net + tax != total"]`)}},
			Identity: ident("", "acme", "9", 538535, "2026-01-01")}})
	noErr(t, "correct 1", err)
	eq(t, "revision 1", c1.Revision, 1)
	eqSlice(t, "open after 1", c1.Open, []string{store.ReasonArithmetic})
	eqSlice(t, "claimed after 1", claimOutboxKeys(t, s, "t1", t0.Add(time.Hour)), []string{})

	rev2 := []byte(`{"schema_version":"invoice-v2","total_minor":538535,"issue_date":"2026-11-02"}`)
	c2, err := s.CorrectResult(ctx, &store.CorrectParams{Tenant: "t1", JobKey: d.JobKey, Result: rev2,
		Changes: []store.FieldChange{{Field: "issue_date", Old: []byte(`"2026-01-01"`), New: []byte(`"2026-11-02"`)}},
		Actor:   "bob", Reason: "date misread", Now: t0.Add(2 * time.Minute),
		Review: &store.CommitReview{Identity: ident("", "acme", "9", 538535, "2026-11-02")}})
	noErr(t, "correct 2", err)
	eq(t, "revision 2", c2.Revision, 2)
	eqSlice(t, "open after 2", c2.Open, []string{})
	eq(t, "items", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1"})), 0)

	got, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "get result", err)
	eq(t, "latest JSON", string(got.JSON), string(rev2))
	eq(t, "latest revision", got.Revision, 2)
	byID, err := s.GetResults(ctx, &store.GetResultsParams{IDs: []int64{got.ID}})
	noErr(t, "get results", err)
	eq(t, "latest JSON by id", string(byID[got.ID].JSON), string(rev2))
	rows := listResults(t, s, &store.ListResultsParams{Tenant: "t1"})
	eq(t, "exported rows", len(rows), 1)
	eq(t, "exported JSON", string(rows[0].JSON), string(rev2))
	eq(t, "exported revision", rows[0].Revision, 2)

	revs, err := s.ListRevisions(ctx, &store.ListRevisionsParams{Tenant: "t1", JobKey: d.JobKey})
	noErr(t, "list revisions", err)
	eq(t, "revisions", len(revs), 2)
	for i, want := range []struct {
		json, actor, reason, changes string
	}{
		{string(rev1), "ann", "total from the PDF", `[{"field":"total_minor","old":null,"new":538535}]`},
		{string(rev2), "bob", "date misread", `[{"field":"issue_date","old":"2026-01-01","new":"2026-11-02"}]`},
	} {
		r := revs[i]
		ch, _ := json.Marshal(r.Changes)
		eq(t, fmt.Sprintf("revision %d", i+1), r.Revision, i+1)
		eq(t, fmt.Sprintf("revision %d JSON", i+1), string(r.JSON), want.json)
		eq(t, fmt.Sprintf("revision %d actor", i+1), r.Actor, want.actor)
		eq(t, fmt.Sprintf("revision %d reason", i+1), r.Reason, want.reason)
		eq(t, fmt.Sprintf("revision %d changes", i+1), string(ch), want.changes)
	}
	// Nothing open any more: the held commit event and both corrections
	// go out, in order.
	eqSlice(t, "claimed after 2", claimOutboxKeys(t, s, "t1", t0.Add(time.Hour)), []string{d.JobKey + ":invoice.committed",
		store.CorrectedEventKey(d.JobKey, 1), store.CorrectedEventKey(d.JobKey, 2)})
	if _, err := s.CorrectResult(ctx, &store.CorrectParams{Tenant: "t1", JobKey: "nope", Result: rev2, Now: t0}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("correct unknown job err = %v, want ErrNotFound", err)
	}
}

// testReviewCorrectionDuplicate: a correction that makes a result the same
// invoice as another is checked again and stays held.
func testReviewCorrectionDuplicate(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := Doc("t1", "a.txt", "acme 41"), Doc("t1", "b.txt", "acme 14")
	first := commitDoc(t, s, "t1", a, &store.CommitReview{Identity: ident("", "acme", "41", 100, "2026-01-01")})
	commitDoc(t, s, "t1", b, &store.CommitReview{Identity: ident("", "acme", "14", 100, "2026-01-01")})
	c, err := s.CorrectResult(ctx, &store.CorrectParams{Tenant: "t1", JobKey: b.JobKey, Result: []byte(`{}`), Actor: "ann",
		Reason: "number misread", Review: &store.CommitReview{Identity: ident("", "acme", "41", 100, "2026-01-01")}, Now: t0})
	noErr(t, "correct", err)
	eqSlice(t, "open", c.Open, []string{store.ReasonPossibleDuplicate})
	items := listReview(t, s, &store.ListReviewParams{Tenant: "t1"})
	eq(t, "items", len(items), 1)
	eq(t, "duplicate of", duplicateDetail(t, items[0].Detail).ResultID, first.ResultID)
	eq(t, "correction event", outboxStates(t, s, "t1", b.JobKey)[store.CorrectedEventKey(b.JobKey, 1)], store.OutboxHeld)
}

// testReviewStale: a commit that lost its fence writes no review reason
// (the fence guards reasons too); the lease holder's commit does.
func testReviewStale(t *testing.T, s store.Store) {
	a, b := Doc("t1", "a.txt", "acme 5"), Doc("t1", "b.txt", "acme 5 again")
	commitDoc(t, s, "t1", a, &store.CommitReview{Identity: ident("", "acme", "5", 100, "2026-01-01")})
	enqueue(t, s, "t1", store.OnChangeHold, b)
	old := claim(t, s, "t1", "A", 1, t0)[0]
	later := t0.Add(61 * time.Second)
	cur := claim(t, s, "t1", "B", 1, later)[0]
	r := &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonIncomplete}},
		Identity: ident("", "acme", "5", 100, "2026-01-01")}
	if _, err := commitReview(s, old, later, r, committedEv); !errors.Is(err, store.ErrStaleLease) {
		t.Fatalf("stale commit err = %v, want ErrStaleLease", err)
	}
	eq(t, "items after the stale commit", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1"})), 0)
	eq(t, "events after the stale commit", len(outboxStates(t, s, "t1", b.JobKey)), 0)
	res, err := commitReview(s, cur, later, r, committedEv)
	noErr(t, "commit", err)
	eqSlice(t, "reasons", res.Reasons, []string{store.ReasonIncomplete, store.ReasonPossibleDuplicate})
	eq(t, "items", len(listReview(t, s, &store.ListReviewParams{Tenant: "t1"})), 2)
}

func testReviewPolicy(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.GetPolicy(ctx, &store.GetPolicyParams{Tenant: "t1"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("policy before any err = %v, want ErrNotFound", err)
	}
	for _, want := range [][]string{{"total_minor", "iban"}, {"invoice_number"}} {
		noErr(t, "set policy", s.SetPolicy(ctx, &store.SetPolicyParams{Tenant: "t1", Require: want, Actor: "ann", Now: t0}))
		p, err := s.GetPolicy(ctx, &store.GetPolicyParams{Tenant: "t1"})
		noErr(t, "get policy", err)
		eqSlice(t, "required", p.Require, want)
		eq(t, "actor", p.Actor, "ann")
	}
	if _, err := s.GetPolicy(ctx, &store.GetPolicyParams{Tenant: "t2"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant's policy err = %v, want ErrNotFound", err)
	}
}
