// Package backoff is invx's one retry-wait rule: exponential backoff with
// full jitter under a cap, and one reader of a server's Retry-After /
// retry-after-ms. The runner (provider calls, database outages) and the
// outbox (webhook and command sinks) both wait by it.
//
// It is a pure function of the attempt number rather than
// cenkalti/backoff/v5 (already in the module graph, through OpenTelemetry):
// invx's retries span processes, with the attempt number stored in the
// database, where v5's ExponentialBackOff is a stateful per-loop object;
// v5 also jitters by a randomization factor around the interval, not full
// jitter, and reads no Retry-After.
package backoff

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter bounds what RetryAfter returns, whatever a server sends:
// callers cap it further (--max-backoff), this only keeps the arithmetic
// finite.
const MaxRetryAfter = 24 * time.Hour

// Policy is exponential backoff with full jitter: after attempt n fails the
// wait is random in (0, min(Base*2^(n-1), Max)], so many workers that failed
// together do not retry together.
type Policy struct {
	Base time.Duration
	Max  time.Duration
	// JitterFunc picks the wait in (0, ceil] (nil: FullJitter(nil)); tests
	// pin it.
	JitterFunc func(ceil time.Duration) time.Duration
}

// Ceiling is the upper bound of the wait after attempt (1-based):
// Base*2^(attempt-1), capped by Max (and Max when the product overflows).
func (p Policy) Ceiling(attempt int) time.Duration {
	ceil := p.Max
	shift := max(attempt-1, 0)
	if shift < 63 {
		if c := p.Base << shift; c > 0 && c>>shift == p.Base && c < ceil {
			ceil = c
		}
	}
	return ceil
}

// Delay is the wait after attempt failed. A server's retryAfter (> 0) is
// honoured as asked, capped by Max; otherwise it is full jitter under
// Ceiling(attempt). It is never negative and never above Max.
func (p Policy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.Max)
	}
	ceil := p.Ceiling(attempt)
	if ceil <= 0 {
		return 0
	}
	jitter := p.JitterFunc
	if jitter == nil {
		jitter = FullJitter(nil)
	}
	return min(max(jitter(ceil), 0), ceil)
}

// FullJitter draws uniformly from (0, ceil] with r (nil: the global
// source). Never zero, so a retry time is strictly in the future.
func FullJitter(r *rand.Rand) func(ceil time.Duration) time.Duration {
	return func(ceil time.Duration) time.Duration {
		if ceil <= 0 {
			return 0
		}
		if r == nil {
			return time.Duration(rand.Int64N(int64(ceil))) + 1
		}
		return time.Duration(r.Int64N(int64(ceil))) + 1
	}
}

// RetryAfter reads how long a server asked the client to wait:
// retry-after-ms (milliseconds, as OpenAI and Azure send it) first, then
// Retry-After as seconds or an HTTP date. Fractions are accepted; a value
// that is absent, unreadable, negative or in the past is 0; anything above
// MaxRetryAfter is MaxRetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return scaled(ms, time.Millisecond)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0) { // NaN too
			return 0
		}
		return scaled(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), MaxRetryAfter)
	}
	return 0
}

// scaled is n units, capped by MaxRetryAfter before converting, so a huge
// or infinite value cannot overflow a Duration.
func scaled(n float64, unit time.Duration) time.Duration {
	if n >= float64(MaxRetryAfter/unit) {
		return MaxRetryAfter
	}
	return time.Duration(n * float64(unit))
}
