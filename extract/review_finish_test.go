package extract_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/store"
)

// reviewAsking records the job keys of every CountReview call.
type reviewAsking struct {
	store.Store
	mu    sync.Mutex
	calls [][]string
}

func (s *reviewAsking) CountReview(ctx context.Context, p *store.CountReviewParams) (*store.ReviewCounts, error) {
	s.mu.Lock()
	s.calls = append(s.calls, slices.Clone(p.JobKeys))
	s.mu.Unlock()
	return s.Store.CountReview(ctx, p)
}

// asked is every key asked about, in order.
func (s *reviewAsking) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Concat(s.calls...)
}

// The finish asks the store about each of the run's documents once: a
// document the run enqueued and then committed with a review reason is in
// both of the run's key sets, and is not asked about twice (nor held in a
// merged copy of them). A worker that enqueued nothing (invx work) asks
// about the jobs its commits opened a reason on.
func TestFinishAsksReviewOncePerDocument(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	docs := []string{sourceText, sourceText + "page 2\n", sourceText + "page 3\n"}

	// invx run: enqueues and commits; due_date is required and null in
	// the answer, so every commit opens "incomplete".
	rs := &reviewAsking{Store: e.Store}
	r := newRunner(e, alwaysValid(), "default")
	r.Store, r.Require = rs, []string{"due_date"}
	s := runDocs(t, r, doc("a.txt", docs[0]), doc("b.txt", docs[1]), doc("c.txt", docs[1]))
	if s.CommittedNow != 2 || s.Final.Review != 2 || s.Final.ReviewOpen["incomplete"] != 2 {
		t.Fatalf("run: committed %d, to review %d %v; want 2, 2 incomplete", s.CommittedNow, s.Final.Review, s.Final.ReviewOpen)
	}
	got := rs.asked()
	if want := r.Keys(); len(got) != 2 || !sameSet(got, want) {
		t.Errorf("run asked CountReview about %d keys %.8q, want each of its 2 documents once %.8q", len(got), got, want)
	}

	// invx work: another runner enqueued the third document; this one
	// commits it and counts its open reason.
	enq := newRunner(e, alwaysValid(), "default")
	if err := enq.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := enq.Enqueue(ctx, []extract.Found{doc("d.txt", docs[2])}); err != nil {
		t.Fatal(err)
	}
	ws := &reviewAsking{Store: e.Store}
	w := newRunner(e, alwaysValid(), "default")
	w.Store, w.Require, w.Command = ws, []string{"due_date"}, "work"
	if err := w.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Work(ctx); err != nil {
		t.Fatal(err)
	}
	ws2, err := w.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if ws2.CommittedNow != 1 || ws2.Final.Review != 1 {
		t.Errorf("work: committed %d, to review %d; want 1, 1", ws2.CommittedNow, ws2.Final.Review)
	}
	if got := ws.asked(); len(got) != 1 || got[0] != enq.Keys()[0] {
		t.Errorf("work asked CountReview about %.8q, want the job it committed %.8q", got, enq.Keys())
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A large run's finish reads its tenant's open reasons in one scan rather
// than by key: the counts are the same, other documents' reasons (another
// run's) are not counted, and the keys are never listed to the store.
func TestFinishScansOpenReviewOfLargeRun(t *testing.T) {
	t.Parallel()
	e := setup(t)
	texts := []string{sourceText, sourceText + "page 2\n", sourceText + "page 3\n"}
	// Another run's committed document with an open reason.
	other := newRunner(e, alwaysValid(), "default")
	other.Require = []string{"due_date"}
	runDocs(t, other, doc("other.txt", sourceText+"elsewhere\n"))

	var want extract.FinalStates
	for _, scan := range []bool{false, true} {
		rs := &reviewAsking{Store: e.Store}
		r := newRunner(e, alwaysValid(), "default")
		r.Store, r.Require = rs, []string{"due_date"}
		if scan {
			extract.SetReviewScanMin(r, 1)
		}
		s := runDocs(t, r, doc("a.txt", texts[0]), doc("b.txt", texts[1]), doc("c.txt", texts[2]))
		// The fake's answers share an invoice number: possible duplicates
		// of each other and of other.txt, beside incomplete.
		if s.Final.Review != 3 || s.Final.ReviewOpen["incomplete"] != 3 {
			t.Errorf("scan %v: to review %d %v, want 3, 3 incomplete", scan, s.Final.Review, s.Final.ReviewOpen)
		}
		if !scan {
			want = s.Final
		} else if diff := cmp.Diff(want, s.Final); diff != "" {
			t.Errorf("scan: final states differ from the lookup by key (-key +scan):\n%s", diff)
		}
		if got := rs.asked(); scan != (len(got) == 0) {
			t.Errorf("scan %v: asked about keys %.8q", scan, got)
		}
	}
}
