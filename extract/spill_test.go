package extract_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/store"
)

// dueAnswer answers a text holding DUE with a due date (nothing to review),
// rejects one holding REJECT, and answers the others without one.
func dueAnswer() *fakeProvider {
	withDue := strings.Replace(validAnswer, `"due_date":null`, `"due_date":"2026-01-31"`, 1)
	return &fakeProvider{ExtractFunc: func(_ int64, req *extract.Request) (*extract.Response, error) {
		switch {
		case strings.Contains(req.Text, "REJECT"):
			return answer(`{"title":`), nil
		case strings.Contains(req.Text, "DUE"):
			return answer(withDue), nil
		}
		return answer(validAnswer), nil
	}}
}

// spillRound is what one delivery left: its summary without what differs
// from run to run (ids, clock), and the tenant's open review rows, sorted.
type spillRound struct {
	Summary extract.Summary
	Review  []string
}

// A run whose keys spill to a file in chunks of two finishes with exactly
// the summary and review rows of a run that holds them in memory: a first
// run (new, duplicate, rejected, committed with and without review), a
// rerun of it (keys found succeeded, dismissed, rejected), and a worker
// that enqueued nothing (keys it committed with a review reason), each
// with the review counts read by key and by scan.
func TestFinishSameWithKeysSpilled(t *testing.T) {
	t.Parallel()
	var docs []extract.Found
	for i := range 23 {
		text := fmt.Sprintf("%sline %d\n", sourceText, i)
		switch i % 4 {
		case 1:
			text += "DUE\n"
		case 2:
			text += "REJECT\n"
		}
		docs = append(docs, doc(fmt.Sprintf("d%02d.txt", i), text))
	}
	docs = append(docs, doc("copy-of-d00.txt", docs[0].Text), doc("copy-of-d01.txt", docs[1].Text))
	later := []extract.Found{doc("w1.txt", sourceText+"work 1\n"), doc("w2.txt", sourceText+"work 2\nDUE\n"),
		doc("w3.txt", sourceText+"work 3\n")}

	rounds := func(t *testing.T, chunk int, scan bool) []spillRound {
		e := setup(t)
		ctx := context.Background()
		var out []spillRound
		finish := func(r *extract.Runner, s *extract.Summary) {
			t.Helper()
			items, err := e.Store.ListReview(ctx, &store.ListReviewParams{Tenant: "default"})
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, it := range items {
				rows = append(rows, it.JobKey+" "+it.Path+" "+it.Reason)
			}
			slices.Sort(rows) // commit order varies with the workers
			s.RunID, s.WallMS = "", 0
			out = append(out, spillRound{Summary: *s, Review: rows})
		}
		runner := func() *extract.Runner {
			r := newRunner(e, dueAnswer(), "default")
			// One worker: which duplicate reasons a commit opens depends
			// on the commits before it.
			r.Require, r.Concurrency = []string{"due_date"}, 1
			extract.SetKeyChunk(r, chunk)
			if scan {
				extract.SetReviewScanMin(r, 1)
			}
			return r
		}
		r := runner()
		finish(r, runDocs(t, r, docs...))
		// A clerk dismisses one rejected document: the rerun finds it
		// dismissed.
		if err := e.Store.Dismiss(ctx, &store.JobActionParams{Tenant: "default", JobKey: jobKey(t, docs[2]),
			Reason: "not an invoice", Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		r = runner()
		finish(r, runDocs(t, r, docs...))

		enq := newRunner(e, dueAnswer(), "default")
		if err := enq.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if err := enq.Enqueue(ctx, later); err != nil {
			t.Fatal(err)
		}
		w := runner()
		w.Command = "work"
		if err := w.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		if err := w.Work(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := w.Finish(ctx, time.Now(), "completed")
		if err != nil {
			t.Fatal(err)
		}
		finish(w, s)
		return out
	}

	want := rounds(t, 0, false)
	first, rerun, work := want[0].Summary, want[1].Summary, want[2].Summary
	// Every commit is a possible duplicate of the others (one invoice
	// number); 6 of them have their due date.
	if f := first.Final; f.Succeeded != 17 || f.Rejected != 6 || f.Review != 17 || f.ReviewOpen["incomplete"] != 11 ||
		first.Duplicates != 2 {
		t.Fatalf("first run: %+v, want 17 succeeded, 6 rejected, 17 to review (11 incomplete), 2 copies", first)
	}
	if f := rerun.Final; rerun.AlreadyCommitted != 17 || f.Succeeded != 17 || f.Dismissed != 1 || f.Rejected != 5 ||
		f.Review != 17 {
		t.Fatalf("rerun: %+v, want 17 already committed, 17 succeeded, 1 dismissed, 5 rejected, 17 to review", rerun)
	}
	if f := work.Final; work.CommittedNow != 3 || f.Review != 3 || f.ReviewOpen["incomplete"] != 2 {
		t.Fatalf("work: %+v, want 3 committed, 3 to review (2 incomplete)", work)
	}
	for _, tc := range []struct {
		chunk int
		scan  bool
	}{{2, false}, {2, true}, {0, true}, {1, false}} {
		t.Run(fmt.Sprintf("chunk %d scan %v", tc.chunk, tc.scan), func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(want, rounds(t, tc.chunk, tc.scan)); diff != "" {
				t.Errorf("finish differs from keys held in memory (-memory +this):\n%s", diff)
			}
		})
	}
}

// jobKey is the job key the test runners give d.
func jobKey(t *testing.T, d extract.Found) string {
	t.Helper()
	k, err := extract.JobKey("default", extract.Transformation, "invoice-summary-v1", d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// backwardScan is a store whose review scan asks Has about keys in
// descending order, against its contract.
type backwardScan struct{ store.Store }

func (s backwardScan) CountReview(ctx context.Context, p *store.CountReviewParams) (*store.ReviewCounts, error) {
	if p.Has == nil {
		return s.Store.CountReview(ctx, p)
	}
	out := &store.ReviewCounts{ByReason: map[string]int{}}
	for _, k := range []string{strings.Repeat("f", 64), strings.Repeat("0", 64)} {
		if p.Has(k) {
			out.Docs++
		}
	}
	return out, nil
}

// The finish walks the run's keys alongside the store's review scan, so it
// relies on the scan asking in ascending order: a scan that does not is
// an error, not a count that could be wrong.
func TestFinishRefusesUnorderedReviewScan(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := newRunner(e, alwaysValid(), "default")
	r.Store = backwardScan{e.Store}
	extract.SetReviewScanMin(r, 1)
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, []extract.Found{doc("a.txt", sourceText)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Work(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := r.Finish(ctx, time.Now(), "completed")
	if err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("Finish = %v, want an error saying the scan was out of order", err)
	}
}
