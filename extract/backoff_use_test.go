package extract_test

import (
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
)

// A provider's Retry-After is the wait, even when the backoff ceiling is
// far above it: the runner waits by internal/backoff's rule, the outbox's
// too, not by a jitter of its own.
func TestRunnerHonoursShortRetryAfter(t *testing.T) {
	t.Parallel()
	e := extracttest.New(t)
	calls := 0
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		calls++
		if calls == 1 {
			return nil, &extract.ProviderError{Class: extract.ClassRateLimited, Status: 429, RetryAfter: 3 * time.Millisecond}
		}
		return &extract.Response{Output: []byte(extracttest.ValidAnswer), Model: "m"}, nil
	}}
	r := e.Runner(p)
	r.Backoff, r.MaxBackoff = time.Hour, time.Hour
	extracttest.NewFakeClock(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)).Use(r)
	if _, err := e.Run(t, r, extracttest.Doc("a.txt", extracttest.Invoice)); err != nil {
		t.Fatalf("run: %v", err)
	}
	atts := e.Attempts(t)
	if len(atts) != 2 || atts[0].Outcome != "retry" {
		t.Fatalf("attempts %+v, want a retry then a success", atts)
	}
	if atts[0].NextDelayMS != 3 {
		t.Errorf("recorded delay %dms, want the provider's 3ms", atts[0].NextDelayMS)
	}
}
