package outbox_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/outbox"
	"github.com/invx/invx/store"
)

// request is what the fake receiver saw.
type request struct {
	method string
	header http.Header
	body   string
}

// receiver is a loopback webhook: answer decides the response to the n-th
// request (0-based).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	answer func(n int, w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []request
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{t: t, answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("receiver: read body: %v", err)
		}
		rc.mu.Lock()
		n := len(rc.reqs)
		rc.reqs = append(rc.reqs, request{method: r.Method, header: r.Header.Clone(), body: string(body)})
		rc.mu.Unlock()
		rc.answer(n, w, r)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func testEvent() *store.OutboxEvent {
	return &store.OutboxEvent{ID: 1, Tenant: "acme", EventKey: "3f2a9c1e:a1", JobKey: "3f2a9c1e", ActionID: "a1",
		Kind: "review_tax", Payload: []byte(`{"event":"invoice.action","action":{"id":"a1"}}`)}
}

func TestWebhookClassifies(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		answer      func(int, http.ResponseWriter, *http.Request)
		want        outbox.Outcome
		wantStatus  int
		wantErr     string
		retryAfter  time.Duration
		errContains bool
	}{
		{name: "200", answer: status(200), want: outbox.Delivered, wantStatus: 200},
		{name: "202", answer: status(202), want: outbox.Delivered, wantStatus: 202},
		{name: "204", answer: status(204), want: outbox.Delivered, wantStatus: 204},
		{name: "500", answer: status(500), want: outbox.Retry, wantStatus: 500, wantErr: "http 500 Internal Server Error"},
		{name: "503 with body", answer: func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(503)
			io.WriteString(w, "down for\nmaintenance")
		}, want: outbox.Retry, wantStatus: 503, wantErr: "http 503: down for maintenance"},
		{name: "408", answer: status(408), want: outbox.Retry, wantStatus: 408, wantErr: "http 408 Request Timeout"},
		{name: "429 Retry-After seconds", answer: func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
		}, want: outbox.Retry, wantStatus: 429, retryAfter: 7 * time.Second, wantErr: "http 429 Too Many Requests"},
		{name: "429 Retry-After date", answer: func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", t0.Add(90*time.Second).Format(http.TimeFormat))
			w.WriteHeader(429)
		}, want: outbox.Retry, wantStatus: 429, retryAfter: 90 * time.Second, wantErr: "http 429 Too Many Requests"},
		{name: "429 retry-after-ms", answer: func(_ int, w http.ResponseWriter, _ *http.Request) {
			// The one Retry-After reader the runner uses too: milliseconds win.
			w.Header().Set("Retry-After-Ms", "2500")
			w.Header().Set("Retry-After", "9")
			w.WriteHeader(429)
		}, want: outbox.Retry, wantStatus: 429, retryAfter: 2500 * time.Millisecond, wantErr: "http 429 Too Many Requests"},
		{name: "400 parks", answer: func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"unknown action kind"}`)
		}, want: outbox.Failed, wantStatus: 400, wantErr: `http 400: {"error":"unknown action kind"}`},
		{name: "404 parks", answer: status(404), want: outbox.Failed, wantStatus: 404, wantErr: "http 404 Not Found"},
		{name: "410 parks", answer: status(410), want: outbox.Failed, wantStatus: 410, wantErr: "http 410 Gone"},
		{name: "redirect not followed", answer: func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, want: outbox.Failed, wantStatus: 302, wantErr: "http 302: redirect not followed", errContains: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(t, tc.answer)
			w := &outbox.Webhook{URL: rc.srv.URL, NowFunc: func() time.Time { return t0 }}
			got := w.Send(context.Background(), testEvent())
			if got.Outcome != tc.want || got.Status != tc.wantStatus || got.RetryAfter != tc.retryAfter {
				t.Errorf("Send = %+v, want outcome %v status %d retry-after %v", got, tc.want, tc.wantStatus, tc.retryAfter)
			}
			if tc.errContains && !strings.Contains(got.Err, tc.wantErr) || !tc.errContains && got.Err != tc.wantErr {
				t.Errorf("Err = %q, want %q", got.Err, tc.wantErr)
			}
			if n := len(rc.requests()); n != 1 {
				t.Errorf("receiver saw %d requests, want 1", n)
			}
		})
	}
}

// The request is a POST of the payload with Content-Type, Idempotency-Key
// and the user's headers.
func TestWebhookRequest(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(200))
	h := http.Header{}
	h.Add("Authorization", "Bearer s3cret")
	h.Add("X-Source", "invx")
	w := &outbox.Webhook{URL: rc.srv.URL + "/hooks/invx", Header: h, UserAgent: "invx/test"}
	ev := testEvent()
	if got := w.Send(context.Background(), ev); got.Outcome != outbox.Delivered {
		t.Fatalf("Send = %+v", got)
	}
	reqs := rc.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.body != string(ev.Payload) {
		t.Errorf("request %s %q, want POST %q", r.method, r.body, ev.Payload)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "Idempotency-Key": "3f2a9c1e:a1",
		"Authorization": "Bearer s3cret", "X-Source": "invx", "User-Agent": "invx/test"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

// Transport failures and timeouts are retried, and the error never repeats
// the URL (its query string may hold a token).
func TestWebhookTransportErrors(t *testing.T) {
	t.Parallel()
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL + "/hook?token=s3cret"
		srv.Close()
		got := (&outbox.Webhook{URL: url}).Send(context.Background(), testEvent())
		if got.Outcome != outbox.Retry || got.Err == "" || strings.Contains(got.Err, "s3cret") {
			t.Errorf("Send = %+v, want a retry without the URL", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		rc := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		defer close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		got := (&outbox.Webhook{URL: rc.srv.URL}).Send(ctx, testEvent())
		if got.Outcome != outbox.Retry || got.Err != "timed out" {
			t.Errorf("Send = %+v, want a retry, timed out", got)
		}
	})
}

// A long answer is cut to 300 bytes on a rune boundary, on one line.
func TestWebhookErrorTextIsCapped(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(422)
		io.WriteString(w, strings.Repeat("é\n", 1000))
	})
	got := (&outbox.Webhook{URL: rc.srv.URL}).Send(context.Background(), testEvent())
	msg := strings.TrimPrefix(got.Err, "http 422: ")
	if got.Outcome != outbox.Failed || len(msg) > outbox.ErrTextMax+len("…") || strings.Contains(got.Err, "\n") ||
		!strings.HasSuffix(msg, "…") {
		t.Errorf("Send = %+v (%d bytes)", got, len(msg))
	}
}
