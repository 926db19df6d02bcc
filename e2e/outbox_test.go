package e2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// ledger is a loopback webhook receiver that behaves like a careful one:
// it applies each Idempotency-Key once and answers 200 to a repeat. It
// fails the first failFirst requests with 500. When armed, the request that
// applies the trip-th event signals tripped and holds its answer until
// released, so the test can kill the deliverer while that request is in
// flight: the event is applied but its delivery never recorded.
type ledger struct {
	t         *testing.T
	srv       *httptest.Server
	failFirst int

	mu       sync.Mutex
	requests int
	applied  map[string]int // event key -> times applied (0 or 1)
	repeats  int            // requests for an already applied key
	trip     int            // 0: not armed
	tripped  chan struct{}
	release  chan struct{}
}

func newLedger(t *testing.T, failFirst int) *ledger {
	t.Helper()
	l := &ledger{t: t, failFirst: failFirst, applied: map[string]int{}, tripped: make(chan struct{}, 1),
		release: make(chan struct{})}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *ledger) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	key := r.Header.Get("Idempotency-Key")
	var payload struct {
		JobKey string `json:"job_key"`
	}
	if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
		json.Unmarshal(body, &payload) != nil || !strings.HasPrefix(key, payload.JobKey+":") || payload.JobKey == "" {
		l.t.Errorf("ledger: bad request %s key %q body %.80q (%v)", r.Method, key, body, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	n := l.requests
	l.requests++
	if n < l.failFirst {
		l.mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	hold := false
	if l.applied[key] > 0 {
		l.repeats++
	} else {
		l.applied[key]++
		hold = l.trip > 0 && len(l.applied) == l.trip
		if hold {
			l.trip = 0
		}
	}
	l.mu.Unlock()
	if hold {
		l.tripped <- struct{}{}
		select {
		case <-l.release:
		case <-time.After(cmdTimeout(l.t)):
			l.t.Errorf("ledger: never released")
		}
	}
	w.WriteHeader(http.StatusOK)
}

// arm makes the request that applies the n-th distinct event trip.
func (l *ledger) arm(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trip = n
}

func (l *ledger) counts() (requests, distinct, repeats int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests, len(l.applied), l.repeats
}

func (l *ledger) keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.applied))
	for k, n := range l.applied {
		if n != 1 {
			l.t.Errorf("ledger applied %s %d times", k, n)
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// invx outbox deliver is SIGKILLed three times, each time while a request
// it sent is in flight, then run to the end: every event reaches the
// receiver (exactly once by distinct key; the three cut-off requests are
// sent again and recognised by their key), the database records every
// event delivered, and a further run sends nothing.
func TestOutboxDeliverSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	const n = 70
	dir := writeDocs(t, genInvoices(t, 7, n))
	db := dbPath(t)
	mustExit(t, invx(t, "--db", db, "run", "--quiet", dir), 0)
	sql := openDB(t, db)
	actions := checkCommittedOnce(t, sql, n)
	total := count(t, sql, `SELECT count(*) FROM outbox`)
	if total != n+actions || total < 90 {
		t.Fatalf("%d outbox events (%d action items), want about 100", total, actions)
	}
	sql.Close()

	led := newLedger(t, 10)
	deliver := []string{"--db", db, "outbox", "deliver", "--webhook", led.srv.URL + "/events"}
	for i, frac := range []float64{0.2, 0.45, 0.7} {
		led.arm(int(frac * float64(total)))
		p := start(t, deliver...)
		select {
		case <-led.tripped:
		case <-time.After(cmdTimeout(t)):
			t.Fatalf("kill %d: the receiver was never tripped", i)
		}
		killErr := p.cmd.Process.Kill()
		r := p.wait(t)
		led.release <- struct{}{}
		if r.code != -1 || killErr != nil {
			t.Fatalf("kill %d: %v; %s", i, killErr, r)
		}
		requests, distinct, repeats := led.counts()
		t.Logf("kill %d: %d requests, %d distinct events applied, %d repeats", i, requests, distinct, repeats)
	}

	last := invx(t, deliver...)
	mustExit(t, last, 0)
	if !strings.HasPrefix(last.stderr, "outbox: delivered ") || !strings.Contains(last.stderr, ", failed 0\n") {
		t.Errorf("final run stderr: %q", last.stderr)
	}
	requests, distinct, repeats := led.counts()
	t.Logf("final: %d requests, %d distinct events applied, %d repeats; %s", requests, distinct, repeats,
		strings.TrimSpace(last.stderr))

	sql = openDB(t, db)
	var want []string
	rows, err := sql.Query(`SELECT lower(hex(r.job_key)) || ':' || o.event_suffix AS k FROM outbox o JOIN results r ON r.id = o.result_id ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	got := led.keys()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the receiver applied %d distinct events, the outbox holds %d (they differ)", len(got), len(want))
	}
	wantCount(t, sql, total, `SELECT count(*) FROM outbox WHERE state = 'delivered' AND delivered_at IS NOT NULL
		AND lease_owner IS NULL AND coalesce(last_error, '') = ''`)
	// Each killed run had exactly one request in flight, applied by the
	// receiver but never recorded: it was sent once more.
	if repeats != 3 {
		t.Errorf("%d repeated requests, want 3 (one per kill)", repeats)
	}
	// Every request is an attempt the store counted, and nothing else is.
	wantCount(t, sql, requests, `SELECT sum(attempts) FROM outbox`)
	if requests != total+10+repeats {
		t.Errorf("%d requests, want %d events + 10 failures + %d repeats", requests, total, repeats)
	}
	integrityOK(t, sql)

	again := invx(t, deliver...)
	mustExit(t, again, 0)
	if r2, _, _ := led.counts(); r2 != requests || again.stderr != "outbox: delivered 0, retried 0, failed 0\n" {
		t.Errorf("a further run: %d new requests, stderr %q", r2-requests, again.stderr)
	}
	list := invx(t, "--db", db, "outbox", "list", "--pending")
	mustExit(t, list, 0)
	if list.stdout != "" {
		t.Errorf("outbox list --pending after delivery:\n%s", list.stdout)
	}
}
