package extract_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
)

func TestClassForStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   extract.Class
	}{
		{400, extract.ClassPermanent}, {401, extract.ClassAuth}, {402, extract.ClassPermanent}, {403, extract.ClassAuth},
		{404, extract.ClassPermanent}, {408, extract.ClassTransient}, {409, extract.ClassTransient}, {413, extract.ClassPermanent},
		{422, extract.ClassPermanent}, {429, extract.ClassRateLimited}, {500, extract.ClassTransient}, {502, extract.ClassTransient},
		{503, extract.ClassTransient}, {504, extract.ClassTransient}, {529, extract.ClassTransient},
	}
	for _, tc := range tests {
		if got := extract.ClassForStatus(tc.status); got != tc.want {
			t.Errorf("ClassForStatus(%d) = %s, want %s", tc.status, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"ms wins", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond},
		{"ms float", http.Header{"Retry-After-Ms": {"2.5"}}, 2500 * time.Microsecond},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"seconds float", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
	}
	for _, tc := range tests {
		if got := extract.RetryAfter(tc.h, now); got != tc.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	ok := func() (*extract.Response, error) {
		return &extract.Response{Output: []byte(extracttest.ValidAnswer), Model: "m", InputTokens: 100, OutputTokens: 50}, nil
	}
	fail := func(pe *extract.ProviderError) func() (*extract.Response, error) {
		return func() (*extract.Response, error) { return nil, pe }
	}
	tests := []struct {
		name        string
		steps       []func() (*extract.Response, error)
		repair      int
		maxAttempts int
		budget      int64
		wantStates  []string
		wantResults int
		wantOutcome []string
		wantErr     error
		minWait     time.Duration
	}{
		{"transient then ok", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassTransient, Status: 500}), ok},
			1, 5, 0, []string{"succeeded"}, 1, []string{"retry", "succeeded"}, nil, 0},
		{"429 honours retry-after", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassRateLimited, Status: 429, RetryAfter: 3 * time.Second}), ok},
			1, 5, 0, []string{"succeeded"}, 1, []string{"retry", "succeeded"}, nil, 3 * time.Second},
		{"transient until max attempts", []func() (*extract.Response, error){
			fail(&extract.ProviderError{Class: extract.ClassTransient}), fail(&extract.ProviderError{Class: extract.ClassTransient}),
			fail(&extract.ProviderError{Class: extract.ClassTransient})},
			1, 3, 0, []string{"failed"}, 0, []string{"retry", "retry", "failed"}, nil, 0},
		{"permanent fails at once", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassPermanent, Status: 404})},
			1, 5, 0, []string{"failed"}, 0, []string{"failed"}, nil, 0},
		{"quota stops the run", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassPermanent, Status: 429, Category: extract.CategoryQuota})},
			1, 5, 0, []string{"failed"}, 0, []string{"failed"}, extract.ErrQuota, 0},
		{"auth releases the job", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassAuth, Status: 401})},
			1, 5, 0, []string{"queued"}, 0, []string{"released"}, extract.ErrAuth, 0},
		{"refusal repaired", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassRejected, Category: "refusal"}), ok},
			1, 5, 0, []string{"succeeded"}, 1, []string{"rejected", "succeeded"}, nil, 0},
		{"refusal without repair", []func() (*extract.Response, error){fail(&extract.ProviderError{Class: extract.ClassRejected, Category: "refusal"})},
			0, 5, 0, []string{"rejected"}, 0, []string{"rejected"}, nil, 0},
		{"token budget", []func() (*extract.Response, error){
			func() (*extract.Response, error) {
				return &extract.Response{Output: []byte(`{}`), InputTokens: 900, OutputTokens: 200}, nil
			}, ok},
			1, 5, 1000, []string{"rejected"}, 0, []string{"rejected"}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := extracttest.New(t)
			n := 0
			p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
				step := tc.steps[min(n, len(tc.steps)-1)]
				n++
				return step()
			}}
			r := e.Runner(p)
			r.Repair, r.MaxAttempts, r.TokenBudget = tc.repair, tc.maxAttempts, tc.budget
			r.MaxBackoff = time.Minute
			clock := extracttest.NewFakeClock(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
			clock.Use(r)
			_, err := e.Run(t, r, extracttest.Doc("a.txt", extracttest.Invoice))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("run err = %v, want %v", err, tc.wantErr)
			}
			if got := e.JobStates(t); !equal(got, tc.wantStates) {
				t.Errorf("job states = %v, want %v", got, tc.wantStates)
			}
			if got := e.Results(t); got != tc.wantResults {
				t.Errorf("results = %d, want %d", got, tc.wantResults)
			}
			var outcomes []string
			for _, a := range e.Attempts(t) {
				outcomes = append(outcomes, a.Outcome)
			}
			if !equal(outcomes, tc.wantOutcome) {
				t.Errorf("attempt outcomes = %v, want %v", outcomes, tc.wantOutcome)
			}
			if tc.minWait > 0 {
				atts := e.Attempts(t)
				if time.Duration(atts[0].NextDelayMS)*time.Millisecond < tc.minWait {
					t.Errorf("recorded delay %dms, want at least %v", atts[0].NextDelayMS, tc.minWait)
				}
				if clock.Waited() < tc.minWait {
					t.Errorf("runner waited %v, want at least %v", clock.Waited(), tc.minWait)
				}
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTruncateKeepsUTF8(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"}, {"abcdef", 3, "abc"}, {"Müller", 2, "M"}, {"Müller", 3, "Mü"}, {"€uro", 2, ""},
	} {
		if got := extract.Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
