package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/invx/invx/store"
)

// testCountReview: CountReview counts what ListReview lists for the same
// jobs: a job with two open reasons is one document and two reasons, a job
// not asked about and another tenant's are not counted.
func testCountReview(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := Doc("t1", "a.txt", "RE-1 100"), Doc("t1", "b.txt", "RE-1 100\npage 2")
	c, other := Doc("t1", "c.txt", "RE-2 200"), Doc("t2", "a.txt", "RE-9 900")
	commitDoc(t, s, "t1", a, &store.CommitReview{Identity: ident("", "acme", "re1", 100, "2026-01-02")})
	// b: a possible duplicate of a, and incomplete.
	commitDoc(t, s, "t1", b, &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonIncomplete}},
		Identity: ident("", "acme", "re1", 100, "2026-01-02")})
	commitDoc(t, s, "t1", c, &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonIncomplete}}})
	commitDoc(t, s, "t2", other, &store.CommitReview{Reasons: []store.ReviewReason{{Reason: store.ReasonIncomplete}}})

	tests := []struct {
		name     string
		keys     []string
		docs     int
		byReason map[string]int
	}{
		{"none asked", nil, 0, map[string]int{}},
		{"no reason open", []string{a.JobKey}, 0, map[string]int{}},
		{"two reasons, one document", []string{a.JobKey, b.JobKey},
			1, map[string]int{store.ReasonIncomplete: 1, store.ReasonPossibleDuplicate: 1}},
		{"every job", []string{a.JobKey, b.JobKey, c.JobKey, other.JobKey},
			2, map[string]int{store.ReasonIncomplete: 2, store.ReasonPossibleDuplicate: 1}},
		{"one reason", []string{c.JobKey}, 1, map[string]int{store.ReasonIncomplete: 1}},
	}
	for _, tc := range tests {
		got, err := s.CountReview(ctx, &store.CountReviewParams{Tenant: "t1", JobKeys: tc.keys})
		noErr(t, "count review "+tc.name, err)
		eq(t, tc.name+": documents", got.Docs, tc.docs)
		eq(t, tc.name+": reasons", len(got.ByReason), len(tc.byReason))
		for r, n := range tc.byReason {
			eq(t, tc.name+": "+r, got.ByReason[r], n)
		}
		// What ListReview lists for the same keys.
		if len(tc.keys) > 0 {
			items := listReview(t, s, &store.ListReviewParams{Tenant: "t1", JobKeys: tc.keys})
			eq(t, tc.name+": items listed", len(items), sum(got.ByReason))
		}
		// The same counts from one scan of the tenant's open reasons.
		// Has is asked once per job, in ascending key order: a run's
		// finish walks its sorted keys alongside instead of looking up.
		var asked []string
		has := func(k string) bool {
			asked = append(asked, k)
			return slices.Contains(tc.keys, k)
		}
		scan, err := s.CountReview(ctx, &store.CountReviewParams{Tenant: "t1", Has: has, MaxOpen: 3})
		noErr(t, "count review by scan "+tc.name, err)
		eq(t, tc.name+": scan asks in ascending key order, each job once",
			slices.IsSorted(asked) && len(slices.Compact(slices.Clone(asked))) == len(asked), true)
		eq(t, tc.name+": scan too many", scan.TooMany, false)
		eq(t, tc.name+": scan documents", scan.Docs, got.Docs)
		eq(t, tc.name+": scan reasons", len(scan.ByReason), len(got.ByReason))
		for r, n := range got.ByReason {
			eq(t, tc.name+": scan "+r, scan.ByReason[r], n)
		}
	}
	// t1 has 3 open reasons: a cap under that reads nothing.
	over, err := s.CountReview(ctx, &store.CountReviewParams{Tenant: "t1", Has: func(string) bool { return true }, MaxOpen: 2})
	noErr(t, "count review over the cap", err)
	eq(t, "over the cap: too many", over.TooMany, true)
	eq(t, "over the cap: nothing counted", over.Docs+len(over.ByReason), 0)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
