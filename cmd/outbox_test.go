package cmd_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
)

// outboxEvent mirrors one entry of invx outbox list --json.
type outboxEvent struct {
	EventKey  string `json:"event_key"`
	Tenant    string `json:"tenant"`
	JobKey    string `json:"job_key"`
	ActionID  string `json:"action_id"`
	Kind      string `json:"kind"`
	State     string `json:"state"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error"`
}

func (e *opsEnv) outboxList(args ...string) []outboxEvent {
	e.t.Helper()
	r := e.must(0, append([]string{"outbox", "list", "--json"}, args...)...)
	var evs []outboxEvent
	if err := json.Unmarshal([]byte(r.stdout), &evs); err != nil {
		e.t.Fatalf("outbox list --json: %v\n%s", err, r.stdout)
	}
	return evs
}

// hook is a loopback webhook that records every request; status decides
// the answer by the event key.
type hook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	keys   []string
	header []http.Header
	bodies []string
}

func newHook(t *testing.T, status func(key string) int) *hook {
	t.Helper()
	h := &hook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		key := r.Header.Get("Idempotency-Key")
		h.mu.Lock()
		h.keys = append(h.keys, key)
		h.header = append(h.header, r.Header.Clone())
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		code := status(key)
		w.WriteHeader(code)
		if code >= 400 {
			io.WriteString(w, "refused by test")
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.keys)
}

func always(code int) func(string) int { return func(string) int { return code } }

// A run publishes one event per action item and one invoice.committed per
// result; deliver sends each once, with its key and the user's headers, and
// a rerun sends nothing.
func TestOutboxDeliverWebhook(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	evs := e.outboxList()
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3 (two invoice.committed, one action): %+v", len(evs), evs)
	}
	var want []string
	for _, ev := range evs {
		want = append(want, ev.EventKey)
		if ev.State != "pending" || ev.Attempts != 0 || ev.EventKey != store.EventKey(ev.JobKey, &store.OutboxInput{ActionID: ev.ActionID, Kind: ev.Kind}) {
			t.Errorf("before delivery: %+v", ev)
		}
	}

	h := newHook(t, always(200))
	r := e.must(0, "outbox", "deliver", "--webhook", h.srv.URL+"/hooks/invx", "--header", "Authorization: Bearer t0k3n",
		"--header", "X-Source:invx")
	if r.stderr != "outbox: delivered 3, retried 0, failed 0\n" || r.stdout != "" {
		t.Errorf("deliver stdout %q stderr %q", r.stdout, r.stderr)
	}
	if diff := cmp.Diff(want, h.seen()); diff != "" {
		t.Errorf("Idempotency-Keys, oldest first (-want +got):\n%s", diff)
	}
	for i, hd := range h.header {
		if hd.Get("Authorization") != "Bearer t0k3n" || hd.Get("X-Source") != "invx" || hd.Get("Content-Type") != "application/json" {
			t.Errorf("request %d headers %v", i, hd)
		}
		var payload map[string]any
		if err := json.Unmarshal([]byte(h.bodies[i]), &payload); err != nil || payload["job_key"] != evs[i].JobKey {
			t.Errorf("request %d body %q: %v", i, h.bodies[i], err)
		}
	}
	for _, ev := range e.outboxList() {
		if ev.State != "delivered" || ev.Attempts != 1 {
			t.Errorf("after delivery: %+v", ev)
		}
	}
	r = e.must(0, "outbox", "list", "--pending")
	if r.stdout != "" || r.stderr != "no pending outbox events\n" {
		t.Errorf("list --pending after delivery: %q %q", r.stdout, r.stderr)
	}

	r = e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	if r.stderr != "outbox: delivered 0, retried 0, failed 0\n" || len(h.seen()) != 3 {
		t.Errorf("rerun sent again: %q, %d requests", r.stderr, len(h.seen()))
	}
	// A rerun of invx run commits nothing new and publishes nothing new.
	e.must(0, "run", "--quiet", e.in)
	if n := len(e.outboxList()); n != 3 {
		t.Errorf("%d events after a rerun, want 3", n)
	}
}

// The listing on a terminal and piped, before and after a refusal.
func TestOutboxListGolden(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	// One worker: commits, and so events, in the order of the files.
	e.must(0, "run", "--quiet", "--concurrency", "1", e.in)
	e.advance(90 * time.Minute)
	h := newHook(t, func(key string) int {
		if strings.HasSuffix(key, ":a1") {
			return 422
		}
		return 200
	})
	e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--webhook", h.srv.URL)
	for _, tc := range []struct {
		golden string
		tty    bool
		args   []string
	}{
		{"ops-outbox-list-tty.golden", true, nil},
		{"ops-outbox-list-piped.golden", false, nil},
		{"ops-outbox-list-pending-tty.golden", true, []string{"--pending", "--all-tenants"}},
	} {
		r := e.invx(tc.tty, append([]string{"outbox", "list"}, tc.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("outbox list %v: exit %d %s", tc.args, r.code, r.stderr)
		}
		checkGolden(t, tc.golden, r.stdout)
	}
	r := e.invx(false, "outbox", "list", "--limit", "1")
	if strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stderr, "showing the oldest 1 events") {
		t.Errorf("--limit 1: %q %q", r.stdout, r.stderr)
	}
}

// A 4xx other than 408 and 429 parks the event as failed at once: exit 3,
// the status in the summary and the listing; a rerun does not send it again.
func TestOutboxDeliverParks4xx(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	h := newHook(t, func(key string) int {
		if strings.HasSuffix(key, ":a1") {
			return 400
		}
		return 204
	})
	r := e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--webhook", h.srv.URL)
	var parked outboxEvent
	for _, ev := range e.outboxList() {
		if ev.ActionID == "a1" {
			parked = ev
		} else if ev.State != "delivered" {
			t.Errorf("event %s: %s", ev.EventKey, ev.State)
		}
	}
	if parked.State != "failed" || parked.Attempts != 1 || parked.LastError != "http 400: refused by test" {
		t.Errorf("parked event %+v", parked)
	}
	want := "outbox: delivered 2, retried 0, failed 1\n" +
		"  failed " + parked.EventKey + " (verify_purchase_order) after 1 attempt(s): http 400: refused by test\n"
	if r.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, want)
	}
	r = e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	if !strings.Contains(r.stderr, "1 event(s) were parked as failed earlier: invx outbox list --pending") || len(h.seen()) != 3 {
		t.Errorf("rerun: %q, %d requests", r.stderr, len(h.seen()))
	}
	if evs := e.outboxList("--pending"); len(evs) != 1 || evs[0].State != "failed" {
		t.Errorf("list --pending: %+v", evs)
	}
}

// An event parked by a refusal is sent again after invx outbox retry, under
// the same Idempotency-Key and with a fresh attempt budget; delivered
// events are not sent again.
func TestOutboxRetryParked(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	var fixed atomic.Bool
	h := newHook(t, func(key string) int {
		if strings.HasSuffix(key, ":a1") && !fixed.Load() {
			return 400
		}
		return 200
	})
	e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--webhook", h.srv.URL)

	r := e.must(0, "outbox", "retry")
	if r.stdout != "" || r.stderr != "requeued 1 outbox event(s): run invx outbox deliver to send them\n" {
		t.Errorf("retry stdout %q stderr %q", r.stdout, r.stderr)
	}
	for _, ev := range e.outboxList() {
		if ev.ActionID == "a1" && (ev.State != "pending" || ev.Attempts != 0 || ev.LastError != "http 400: refused by test") {
			t.Errorf("requeued event %+v", ev)
		}
	}

	fixed.Store(true)
	r = e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	if r.stderr != "outbox: delivered 1, retried 0, failed 0\n" {
		t.Errorf("deliver after retry: %q", r.stderr)
	}
	evs := e.outboxList()
	sent := map[string]int{}
	for _, k := range h.seen() {
		sent[k]++
	}
	for _, ev := range evs {
		if ev.State != "delivered" || ev.Attempts != 1 {
			t.Errorf("after retry and deliver: %+v", ev)
		}
		want := 1
		if ev.ActionID == "a1" {
			want = 2
		}
		if sent[ev.EventKey] != want {
			t.Errorf("%s sent %d time(s), want %d", ev.EventKey, sent[ev.EventKey], want)
		}
	}
	if len(sent) != len(evs) {
		t.Errorf("the receiver saw %d keys for %d events", len(sent), len(evs))
	}

	// Nothing is parked any more: retry and deliver do nothing.
	r = e.must(0, "outbox", "retry")
	if r.stderr != "no failed outbox events\n" {
		t.Errorf("second retry: %q", r.stderr)
	}
	e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	if n := len(h.seen()); n != len(evs)+1 {
		t.Errorf("%d requests in all, want %d", n, len(evs)+1)
	}
}

// Retry by event key stays within --tenant unless --all-tenants; a key that
// names no failed event is an error, and the others are still requeued.
func TestOutboxRetryKeys(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	e.must(0, "--tenant", "globex", "run", "--quiet", e.in)
	h := newHook(t, func(key string) int {
		if strings.HasSuffix(key, ":a1") {
			return 400
		}
		return 200
	})
	e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--all-tenants", "--webhook", h.srv.URL)
	var mine, theirs, done string
	for _, ev := range e.outboxList("--all-tenants") {
		switch {
		case ev.ActionID == "a1" && ev.Tenant == "globex":
			theirs = ev.EventKey
		case ev.ActionID == "a1":
			mine = ev.EventKey
		default:
			done = ev.EventKey
		}
	}
	if mine == "" || theirs == "" || done == "" {
		t.Fatalf("events: mine %q, theirs %q, delivered %q", mine, theirs, done)
	}

	r := e.invx(false, "outbox", "retry", mine, theirs, done, mine)
	want := "requeued 1 outbox event(s): run invx outbox deliver to send them\n" +
		"invx: outbox retry: 2 of 3 event key(s) name no failed event of tenant default (pending, delivered or unknown): " +
		"invx outbox list --pending\n"
	if r.code != cmd.ExitError || r.stderr != want {
		t.Errorf("retry by key: exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, want)
	}
	r = e.must(0, "outbox", "retry", "--all-tenants", theirs)
	if r.stderr != "requeued 1 outbox event(s): run invx outbox deliver to send them\n" {
		t.Errorf("retry --all-tenants: %q", r.stderr)
	}
	for _, ev := range e.outboxList("--all-tenants") {
		wantState := "delivered"
		if ev.ActionID == "a1" {
			wantState = "pending"
		}
		if ev.State != wantState {
			t.Errorf("event %s of %s: %s, want %s", ev.EventKey, ev.Tenant, ev.State, wantState)
		}
	}
}

// Transient failures stay pending when their retry is not due within
// --wait: exit 3 and a hint to run again.
func TestOutboxDeliverStillPending(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	h := newHook(t, always(503))
	r := e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--webhook", h.srv.URL, "--wait", "0s")
	if !strings.HasPrefix(r.stderr, "outbox: delivered 0, retried 3, failed 0\n3 event(s) still pending") ||
		!strings.Contains(r.stderr, "run invx outbox deliver again") {
		t.Errorf("stderr %q", r.stderr)
	}
	for _, ev := range e.outboxList() {
		if ev.State != "pending" || ev.Attempts != 1 || ev.LastError != "http 503: refused by test" {
			t.Errorf("event %+v", ev)
		}
	}
	// --max-attempts 1: the next failure parks them.
	e.advance(time.Minute)
	r = e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--webhook", h.srv.URL, "--wait", "0s", "--max-attempts", "1")
	if !strings.HasPrefix(r.stderr, "outbox: delivered 0, retried 0, failed 3\n") ||
		!strings.Contains(r.stderr, "after 2 attempt(s): gave up after 2 attempts: http 503: refused by test") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// The command sink: the payload on stdin, the key in the environment; exit
// 0 delivers, another status parks with the start of stderr.
func TestOutboxDeliverCommand(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	seen := filepath.Join(e.tmp, "seen")
	script := filepath.Join(e.tmp, "post.sh")
	body := "#!/bin/sh\n" +
		"payload=$(cat)\n" +
		"case \"$INVX_EVENT_KIND\" in verify_purchase_order) echo 'ledger said no' >&2; exit 2 ;; esac\n" +
		"echo \"$INVX_EVENT_KEY $INVX_EVENT_KIND $1\" >> " + seen + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.must(cmd.ExitNeedsReview, "outbox", "deliver", "--command", script+" 'an arg'")
	if !strings.HasPrefix(r.stderr, "outbox: delivered 2, retried 0, failed 1\n") ||
		!strings.Contains(r.stderr, "exit 2: ledger said no") {
		t.Errorf("stderr %q", r.stderr)
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, ev := range e.outboxList() {
		if ev.Kind == "invoice.committed" {
			want = append(want, ev.EventKey+" invoice.committed an arg")
		}
		// The program's verdict is what the store records.
		wantState := "delivered"
		if ev.Kind == "verify_purchase_order" {
			wantState = "failed"
		}
		if ev.State != wantState || ev.Attempts != 1 {
			t.Errorf("event %s (%s): %s after %d attempts, want %s after 1", ev.EventKey, ev.Kind, ev.State, ev.Attempts, wantState)
		}
	}
	if len(want) != 2 {
		t.Errorf("%d invoice.committed events, want 2", len(want))
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(string(b)), "\n")); diff != "" {
		t.Errorf("the command saw (-want +got):\n%s", diff)
	}
}

// Shadow results publish nothing, so there is nothing to deliver.
func TestOutboxShadowPublishesNothing(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", "--shadow", e.in)
	r := e.must(0, "outbox", "list")
	if r.stdout != "" || r.stderr != "no outbox events\n" {
		t.Errorf("list: %q %q", r.stdout, r.stderr)
	}
	h := newHook(t, always(200))
	e.must(0, "outbox", "deliver", "--webhook", h.srv.URL)
	if n := len(h.seen()); n != 0 {
		t.Errorf("%d requests for shadow results", n)
	}
}

// Tenants are isolated: deliver sends --tenant's events unless
// --all-tenants.
func TestOutboxDeliverTenants(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	e.must(0, "--tenant", "globex", "run", "--quiet", e.in)
	h := newHook(t, always(200))
	e.must(0, "--tenant", "globex", "outbox", "deliver", "--webhook", h.srv.URL)
	if n := len(h.seen()); n != 3 {
		t.Errorf("globex: %d requests, want 3", n)
	}
	for _, ev := range e.outboxList() {
		if ev.State != "pending" {
			t.Errorf("default's event %s was delivered by globex's run", ev.EventKey)
		}
	}
	r := e.must(0, "outbox", "deliver", "--all-tenants", "--webhook", h.srv.URL)
	if r.stderr != "outbox: delivered 3, retried 0, failed 0\n" {
		t.Errorf("all tenants: %q", r.stderr)
	}
	if n := len(e.outboxList("--all-tenants")); n != 6 {
		t.Errorf("%d events in all", n)
	}
}

func TestOutboxUsage(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"deliver"}, "want --webhook URL or --command CMD"},
		{[]string{"deliver", "--webhook", "http://x", "--command", "true"}, "exclude each other"},
		{[]string{"deliver", "--command", "true", "--header", "A: b"}, "--header needs --webhook"},
		{[]string{"deliver", "--webhook", "ftp://x/y"}, `--webhook "ftp://x/y": want an http:// or https:// URL`},
		{[]string{"deliver", "--webhook", "https://user:secret@x/y", "--header", "bad header: v"}, `--header "bad header": want Name: value`},
		{[]string{"deliver", "--webhook", "https://x", "--header", "Idempotency-Key: mine"}, "--header Idempotency-Key: set by invx itself"},
		{[]string{"deliver", "--webhook", "https://x", "--header", "nocolon"}, `--header "nocolon": want Name: value`},
		{[]string{"deliver", "--command", filepath.Join(e.tmp, "missing.sh")}, "not found or not executable"},
		{[]string{"deliver", "--command", "a | b"}, "--command:"},
		{[]string{"deliver", "--webhook", "https://x", "--concurrency", "0"}, "--concurrency 0: want 1..64"},
		{[]string{"deliver", "--webhook", "https://x", "--max-attempts", "0"}, "--max-attempts 0: want at least 1"},
		{[]string{"list", "--limit", "-1"}, "--limit -1"},
		{[]string{"list", "x"}, `unexpected argument "x"`},
		{[]string{"retry", "nocolon"}, `outbox retry "nocolon": want an event key <job_key>:<action_id>`},
		{[]string{"retry", "abc:"}, `outbox retry "abc:": want an event key`},
		{nil, "want a subcommand: list, deliver or retry"},
	} {
		r := e.invx(false, append([]string{"outbox"}, tc.args...)...)
		if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "secret") {
			t.Errorf("outbox %v: exit %d, stderr %q; want exit 2 with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
