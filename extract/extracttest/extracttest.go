// Package extracttest runs the real pipeline in tests: a real SQLite file, a
// Runner, and helpers to read back the durable state (jobs, attempts,
// results) that tests assert on. Provider adapter tests use it with their
// loopback fakes.
package extracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// Env is one test's database.
type Env struct {
	Store *sqlite.Store
	Path  string
}

// New opens a fresh SQLite store in t's temp dir.
func New(t *testing.T) *Env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "invx.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Env{Store: st, Path: path}
}

var seq atomic.Int64

// V1 returns invoice-summary-v1, the version the hand-written answers of
// pipeline and adapter tests are documents of. Those tests name it rather
// than take schema.Latest(), so that a new default version does not change
// what they prove.
func V1() *schema.Version {
	v, err := schema.Lookup(schema.V1)
	if err != nil {
		panic(err) // V1 is released and never removed
	}
	return v
}

// Runner returns a runner on e for provider p with test-friendly defaults:
// invoice-summary-v1 (see V1), one worker, fast polling, millisecond
// backoff, repair 1.
func (e *Env) Runner(p extract.Provider) *extract.Runner {
	id := fmt.Sprintf("test-run-%d", seq.Add(1))
	return &extract.Runner{Store: e.Store, Provider: p, Schema: V1(), Tenant: "default", RunID: id,
		Owner: "test/" + id, Concurrency: 1, Repair: 1, MaxAttempts: 5, Backoff: time.Millisecond,
		MaxBackoff: 10 * time.Millisecond, PollInterval: 2 * time.Millisecond}
}

// Run is one whole delivery of docs: begin, enqueue, work, finish. The
// error is Work's (ErrAuth, ErrQuota, ...).
func (e *Env) Run(t *testing.T, r *extract.Runner, docs ...extract.Found) (*extract.Summary, error) {
	t.Helper()
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	werr := r.Work(ctx)
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	return s, werr
}

// Doc normalises text as discovery would.
func Doc(path, text string) extract.Found {
	n, err := extract.Normalize([]byte(text))
	if err != nil {
		panic(err)
	}
	return extract.Found{Path: path, Display: path, Text: n, Digest: extract.Digest(n)}
}

// Count runs a counting query.
func (e *Env) Count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := sqlitetest.ReadOnly(t, e.Store.Path()).QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// Attempt is an attempt row as tests compare it.
type Attempt struct {
	No           int
	Outcome      string
	Class        string
	Category     string
	HTTPStatus   int
	RequestID    string
	Model        string
	InputTokens  int64
	OutputTokens int64
	NextDelayMS  int64
	PromptHash   string
	Message      string
}

// Attempts returns every attempt that was made, in order: not the leases
// a stopping run gave back before their call (outcome not_started).
func (e *Env) Attempts(t *testing.T) []Attempt {
	t.Helper()
	rows, err := sqlitetest.ReadOnly(t, e.Store.Path()).Query(`SELECT attempt_no, outcome, error_class, category, http_status, request_id,
		model, input_tokens, output_tokens, next_delay_ms, lower(hex(prompt_hash)), message FROM attempts
		WHERE outcome <> 'not_started' ORDER BY job_id, attempt_no`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		var a Attempt
		if err := rows.Scan(&a.No, &a.Outcome, &a.Class, &a.Category, &a.HTTPStatus, &a.RequestID, &a.Model,
			&a.InputTokens, &a.OutputTokens, &a.NextDelayMS, &a.PromptHash, &a.Message); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// JobStates returns every job's state, in order.
func (e *Env) JobStates(t *testing.T) []string {
	t.Helper()
	return e.Strings(t, `SELECT state FROM jobs ORDER BY id`)
}

// Strings runs q, which selects one text column, and returns its values in
// order.
func (e *Env) Strings(t *testing.T, q string, args ...any) []string {
	t.Helper()
	rows, err := sqlitetest.ReadOnly(t, e.Store.Path()).Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Results is the number of committed results.
func (e *Env) Results(t *testing.T) int {
	t.Helper()
	return e.Count(t, `SELECT count(*) FROM results`)
}

// Invoice is a realistic source text and a valid invoice-summary-v1 answer
// for it, for fakes to return.
const Invoice = "Acme Tools Ltd\nInvoice No.: AT-2026-0042\nPO Number: 4500012345\nTotal due: EUR 1,234.50\nDue date: 2026-12-31\n"

// ValidAnswer is a valid answer for Invoice.
const ValidAnswer = `{"schema_version":"invoice-summary-v1","title":"Invoice AT-2026-0042 from Acme Tools Ltd",` +
	`"bullets":["Acme Tools Ltd invoices EUR 1234.50, due 2026-12-31."],` +
	`"invoice":{"supplier_name":"Acme Tools Ltd","invoice_number":"AT-2026-0042","currency":"EUR","total_minor":123450,"due_date":"2026-12-31"},` +
	`"action_items":[{"id":"a1","kind":"verify_purchase_order","evidence":"PO Number: 4500012345"}]}`

// FakeClock is an injectable clock whose After returns at once and moves
// time forward, so waits (Retry-After, backoff) are visible without sleeping.
type FakeClock struct {
	now    atomic.Int64
	waited atomic.Int64
}

// NewFakeClock starts at t.
func NewFakeClock(t time.Time) *FakeClock {
	c := &FakeClock{}
	c.now.Store(t.UnixNano())
	return c
}

// Now is the current fake time.
func (c *FakeClock) Now() time.Time { return time.Unix(0, c.now.Load()).UTC() }

// After advances the clock by d and fires at once.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.now.Add(int64(d))
	c.waited.Add(int64(d))
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// Waited is the total time After was asked to wait.
func (c *FakeClock) Waited() time.Duration { return time.Duration(c.waited.Load()) }

// Use wires the clock into r.
func (c *FakeClock) Use(r *extract.Runner) {
	r.NowFunc, r.AfterFunc = c.Now, c.After
}

// DecodeJSON decodes b, which must be one JSON value, into the generic
// form (maps, slices, float64s): two encodings compare equal there when
// they mean the same document, whatever their key order or escapes.
func DecodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not one JSON value: %v\n%s", err, b)
	}
	return v
}
