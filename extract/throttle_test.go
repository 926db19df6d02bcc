package extract_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
)

// While providers answer 429 the run's in-flight concurrency shrinks, and it
// grows back after successes.
func TestRateLimitShrinksConcurrency(t *testing.T) {
	t.Parallel()
	e := extracttest.New(t)
	var mu sync.Mutex
	inflight, calls := 0, 0
	var seen []int // in-flight count as each call starts
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		mu.Lock()
		inflight++
		calls++
		n := calls
		seen = append(seen, inflight)
		mu.Unlock()
		defer func() {
			mu.Lock()
			inflight--
			mu.Unlock()
		}()
		if n <= 4 {
			time.Sleep(20 * time.Millisecond) // let all four overlap
			return nil, &extract.ProviderError{Class: extract.ClassRateLimited, Status: 429, RetryAfter: time.Millisecond}
		}
		time.Sleep(5 * time.Millisecond)
		return &extract.Response{Output: []byte(validAnswer)}, nil
	}}
	r := e.Runner(p)
	r.Concurrency, r.Repair = 4, 0
	var docs []extract.Found
	for i := range 16 {
		docs = append(docs, extracttest.Doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i)))
	}
	s, err := e.Run(t, r, docs...)
	if err != nil {
		t.Fatal(err)
	}
	if s.CommittedNow != 16 {
		t.Fatalf("committed %d, want 16", s.CommittedNow)
	}
	if seen[3] != 4 {
		t.Fatalf("the first four calls should overlap, in flight at call 4 = %d", seen[3])
	}
	if seen[4] != 1 {
		t.Errorf("after four 429s the next call should run alone, in flight = %d (seen %v)", seen[4], seen)
	}
	grew := false
	for _, n := range seen[5:] {
		grew = grew || n > 1
	}
	if !grew {
		t.Errorf("concurrency never grew back after successes: %v", seen)
	}
}
