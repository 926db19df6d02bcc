package rules

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

// TestPooledDocumentsIndependent extracts the corpus forwards, backwards
// and from four goroutines in shuffled orders: a document's answer must not
// depend on which document's buffers (docPool) it reused, nor on another
// goroutine working beside it.
func TestPooledDocumentsIndependent(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, p := range raceSample(v2Inputs(t)) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		texts = append(texts, normalizeText(b))
	}
	answer := func(i int) string {
		t.Helper()
		b1, err1 := json.Marshal(Extract(texts[i]))
		b2, err2 := json.Marshal(ExtractV2(texts[i]))
		if err1 != nil || err2 != nil {
			t.Errorf("encode %d: %v %v", i, err1, err2)
		}
		return string(b1) + "\n" + string(b2)
	}
	want := make([]string, len(texts))
	for i := range texts {
		want[i] = answer(i)
	}
	check := func(i int, order string) {
		t.Helper()
		if got := answer(i); got != want[i] {
			t.Errorf("text %d read %s:\n got %s\nwant %s", i, order, got, want[i])
		}
	}
	for i := len(texts) - 1; i >= 0; i-- {
		check(i, "backwards")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		order := rand.New(rand.NewPCG(uint64(g), 7)).Perm(len(texts))
		wg.Go(func() {
			for _, i := range order {
				check(i, "shuffled beside other goroutines")
			}
		})
	}
	wg.Wait()
}

// TestReleaseClearsScratch holds release to clearing what the pool keeps:
// no line, currency, number or cell memo of the document stays reachable.
func TestReleaseClearsScratch(t *testing.T) {
	t.Parallel()
	d := newDocument("ACME GmbH\nInvoice no. 4711\nTotal EUR 1.234,50\nIBAN DE89 3704 0044 0532 0130 00\n")
	for _, ln := range d.lines {
		for _, c := range ln.cells {
			ln.foldCell(c)
		}
	}
	sc := d.scratch
	if len(sc.lines) == 0 || len(sc.curs) == 0 || len(sc.nums) == 0 || len(sc.memo) == 0 {
		t.Fatalf("scratch not kept: %d lines, %d currencies, %d numbers, %d memos", len(sc.lines), len(sc.curs), len(sc.nums), len(sc.memo))
	}
	d.release()
	if d.scratch != nil || d.lines != nil {
		t.Fatal("release left the document its buffers")
	}
	for k := range sc.lines {
		if sc.lines[k].raw != "" || sc.lines[k].f.s != "" || sc.ptrs[k] != nil {
			t.Fatalf("line %d kept after release", k)
		}
	}
	for k := range sc.curs {
		if sc.curs[k] != (curHit{}) {
			t.Fatalf("currency %d kept after release", k)
		}
	}
	for k := range sc.nums {
		if sc.nums[k] != (amountTok{}) {
			t.Fatalf("number %d kept after release", k)
		}
	}
	for k := range sc.memo {
		if sc.memo[k] != (cellMemo{}) {
			t.Fatalf("cell memo %d kept after release", k)
		}
	}
}
