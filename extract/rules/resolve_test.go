package rules

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestHitOrderMatchesSortSliceStable holds the label and date hits'
// ordering, now by slices.SortStableFunc, to the sort.SliceStable it
// replaced, on random hit lists full of equal starts and equal spans whose
// order only stability decides.
func TestHitOrderMatchesSortSliceStable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	ties := 0
	for range 5000 {
		var labels []labelHit
		var dates []dateHit
		for k := range rng.IntN(40) {
			s := rng.IntN(8)
			e := s + 1 + rng.IntN(4)
			labels = append(labels, labelHit{s, e, k})
			dates = append(dates, dateHit{s, e, civil{2000 + k, 1, 1}})
		}
		wantL := slices.Clone(labels)
		sort.SliceStable(wantL, func(i, j int) bool {
			if wantL[i].start != wantL[j].start {
				return wantL[i].start < wantL[j].start
			}
			return wantL[i].end-wantL[i].start > wantL[j].end-wantL[j].start
		})
		var keptL []labelHit
		lastEnd := -1
		for _, h := range wantL {
			if h.start >= lastEnd {
				keptL, lastEnd = append(keptL, h), h.end
			}
		}
		if got := resolveHits(slices.Clone(labels)); !slices.Equal(got, keptL) {
			t.Fatalf("resolveHits(%v) = %v, want %v", labels, got, keptL)
		}
		wantD := slices.Clone(dates)
		sort.SliceStable(wantD, func(i, j int) bool {
			if wantD[i].start != wantD[j].start {
				return wantD[i].start < wantD[j].start
			}
			return wantD[i].end > wantD[j].end
		})
		var keptD []dateHit
		lastEnd = -1
		for _, h := range wantD {
			if h.start >= lastEnd {
				keptD, lastEnd = append(keptD, h), h.end
			}
		}
		if got := finishDates(slices.Clone(dates), "", 0); !slices.Equal(got, keptD) {
			t.Fatalf("finishDates(%v) = %v, want %v", dates, got, keptD)
		}
		for i := 1; i < len(wantL); i++ {
			if wantL[i].start == wantL[i-1].start && wantL[i].end == wantL[i-1].end {
				ties++
			}
		}
	}
	if ties < 1000 {
		t.Fatalf("only %d equal spans: stability is barely tested", ties)
	}
}

// TestNewSpanKeepsSpansApart pins the shared backing of match spans: each
// is two ints of its own, so setting or appending to one leaves the next.
func TestNewSpanKeepsSpansApart(t *testing.T) {
	t.Parallel()
	var spans []int
	var out [][]int
	for i := range 10 {
		var m []int
		m, spans = newSpan(spans, i, i+1)
		out = append(out, m)
	}
	out[0][1] = 99
	out[2] = append(out[2], 7)
	for i, m := range out {
		want := []int{i, i + 1}
		switch i {
		case 0:
			want = []int{0, 99}
		case 2:
			want = []int{2, 3, 7}
		}
		if !slices.Equal(m, want) || cap(m) > len(m) && i != 2 {
			t.Fatalf("span %d = %v (cap %d), want %v", i, m, cap(m), want)
		}
	}
}
