package backoff_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/invx/invx/internal/backoff"
)

func TestCeiling(t *testing.T) {
	t.Parallel()
	p := backoff.Policy{Base: 500 * time.Millisecond, Max: time.Minute}
	for _, tc := range []struct {
		name    string
		p       backoff.Policy
		attempt int
		want    time.Duration
	}{
		{"first", p, 1, 500 * time.Millisecond},
		{"grows", p, 2, time.Second},
		{"doubles", p, 4, 4 * time.Second},
		{"capped", p, 8, time.Minute},
		{"zero attempt is the first", p, 0, 500 * time.Millisecond},
		{"huge attempt does not overflow", p, 200, time.Minute},
		{"shift overflow", backoff.Policy{Base: time.Hour, Max: 1<<63 - 1}, 40, 1<<63 - 1},
		{"no base", backoff.Policy{Max: time.Second}, 3, time.Second},
	} {
		if got := tc.p.Ceiling(tc.attempt); got != tc.want {
			t.Errorf("%s: Ceiling(%d) = %v, want %v", tc.name, tc.attempt, got, tc.want)
		}
	}
}

// Full jitter with a seeded source: every wait lies in (0, ceiling], and
// the waits of one attempt spread over the interval rather than bunching.
func TestDelayJitterBounds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	p := backoff.Policy{Base: 100 * time.Millisecond, Max: 10 * time.Second, JitterFunc: backoff.FullJitter(r)}
	for attempt := 1; attempt <= 10; attempt++ {
		ceil := p.Ceiling(attempt)
		var low, high int
		for range 1000 {
			d := p.Delay(attempt, 0)
			if d <= 0 || d > ceil {
				t.Fatalf("attempt %d: Delay = %v, want in (0, %v]", attempt, d, ceil)
			}
			if d < ceil/4 {
				low++
			}
			if d > ceil*3/4 {
				high++
			}
		}
		// Uniform: about 250 of 1000 in each outer quarter.
		if low < 150 || high < 150 {
			t.Errorf("attempt %d: %d waits in the lowest quarter, %d in the highest: not full jitter", attempt, low, high)
		}
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	top := func(ceil time.Duration) time.Duration { return ceil }
	for _, tc := range []struct {
		name       string
		p          backoff.Policy
		attempt    int
		retryAfter time.Duration
		want       time.Duration
	}{
		{"jitter at the ceiling", backoff.Policy{Base: time.Second, Max: time.Minute, JitterFunc: top}, 3, 0, 4 * time.Second},
		{"retry-after honoured below the ceiling", backoff.Policy{Base: time.Hour, Max: 2 * time.Hour, JitterFunc: top}, 1, 3 * time.Millisecond, 3 * time.Millisecond},
		{"retry-after capped", backoff.Policy{Base: time.Second, Max: 20 * time.Second, JitterFunc: top}, 1, time.Hour, 20 * time.Second},
		{"jitter out of range clamped", backoff.Policy{Base: time.Second, Max: time.Minute,
			JitterFunc: func(time.Duration) time.Duration { return time.Hour }}, 1, 0, time.Second},
		{"negative jitter clamped", backoff.Policy{Base: time.Second, Max: time.Minute,
			JitterFunc: func(time.Duration) time.Duration { return -1 }}, 1, 0, 0},
		{"no max", backoff.Policy{Base: time.Second}, 1, 0, 0},
	} {
		if got := tc.p.Delay(tc.attempt, tc.retryAfter); got != tc.want {
			t.Errorf("%s: Delay = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"nil", nil, 0},
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"seconds with spaces", http.Header{"Retry-After": {" 7 "}}, 7 * time.Second},
		{"seconds fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"seconds capped", http.Header{"Retry-After": {"99999999999"}}, backoff.MaxRetryAfter},
		{"infinite capped", http.Header{"Retry-After": {"+Inf"}}, backoff.MaxRetryAfter},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"far date capped", http.Header{"Retry-After": {now.Add(1000 * time.Hour).Format(http.TimeFormat)}}, backoff.MaxRetryAfter},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"ms", http.Header{"Retry-After-Ms": {"2500"}}, 2500 * time.Millisecond},
		{"ms fraction", http.Header{"Retry-After-Ms": {"2.5"}}, 2500 * time.Microsecond},
		{"ms wins over seconds", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond},
		{"bad ms falls back to seconds", http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"9"}}, 9 * time.Second},
		{"ms capped", http.Header{"Retry-After-Ms": {"1e15"}}, backoff.MaxRetryAfter},
	} {
		if got := backoff.RetryAfter(tc.h, now); got != tc.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The runner and the outbox wait by this package and keep no backoff of
// their own: each imports it, and neither imports math/rand, which a jitter
// of its own would need.
func TestOneBackoff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "github.com/invx/invx/extract", "github.com/invx/invx/outbox", "github.com/invx/invx/store/postgres").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		seen++
		if !slices.Contains(p.Imports, "github.com/invx/invx/internal/backoff") {
			t.Errorf("%s does not use internal/backoff", p.ImportPath)
		}
		for _, bad := range []string{"math/rand", "math/rand/v2", "github.com/cenkalti/backoff/v5"} {
			if slices.Contains(p.Imports, bad) {
				t.Errorf("%s imports %s: a second backoff or jitter", p.ImportPath, bad)
			}
		}
	}
	if seen != 3 {
		t.Fatalf("go list described %d packages, want 3", seen)
	}
}
