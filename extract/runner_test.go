package extract_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite/sqlitetest"
)

// fakeProvider is a function-field fake that counts its calls.
type fakeProvider struct {
	calls       atomic.Int64
	ExtractFunc func(n int64, req *extract.Request) (*extract.Response, error)
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	n := p.calls.Add(1)
	return p.ExtractFunc(n, req)
}

const validAnswer = `{"schema_version":"invoice-summary-v1","title":"Invoice 7","bullets":["Invoice 7 from Acme Ltd."],
"invoice":{"supplier_name":"Acme Ltd","invoice_number":"7","currency":"EUR","total_minor":1000,"due_date":null},
"action_items":[{"id":"a1","kind":"verify_purchase_order","evidence":"PO 4500012345"}]}`

const sourceText = "Acme Ltd\nInvoice 7\nPO 4500012345\nTotal EUR 10.00\n"

func answer(s string) *extract.Response { return &extract.Response{Output: []byte(s), Model: "fake-1"} }

func alwaysValid() *fakeProvider {
	return &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) { return answer(validAnswer), nil }}
}

func setup(t *testing.T) *extracttest.Env {
	t.Helper()
	return extracttest.New(t)
}

// newRunner is extracttest's runner with this file's defaults: two workers
// and no repair unless a test asks for it.
func newRunner(e *extracttest.Env, p extract.Provider, tenant string) *extract.Runner {
	r := e.Runner(p)
	r.Tenant, r.Concurrency, r.Repair, r.PollInterval = tenant, 2, 0, 5*time.Millisecond
	return r
}

func doc(path, text string) extract.Found { return extracttest.Doc(path, text) }

// runDocs is one whole delivery: begin, enqueue, work, finish.
func runDocs(t *testing.T, r *extract.Runner, docs ...extract.Found) *extract.Summary {
	t.Helper()
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := r.Work(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOneJobEightGoroutines(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		time.Sleep(20 * time.Millisecond) // keep the lease held while the others arrive
		return answer(validAnswer), nil
	}}
	d := doc("a.txt", sourceText)
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRunner(e, p, "default")
			ctx := context.Background()
			if errs[i] = r.Begin(ctx); errs[i] != nil {
				return
			}
			if errs[i] = r.Enqueue(ctx, []extract.Found{d}); errs[i] != nil {
				return
			}
			if errs[i] = r.Work(ctx); errs[i] != nil {
				return
			}
			res, err := e.Store.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: r.Keys()[0]})
			if err != nil {
				errs[i] = err
				return
			}
			ids[i] = res.ID
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("goroutine %d: %v", i, err)
		}
	}
	for i, id := range ids {
		if id != ids[0] || id == 0 {
			t.Fatalf("goroutine %d saw result %d, goroutine 0 saw %d", i, id, ids[0])
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 1 {
		t.Fatalf("results = %d, want 1", n)
	}
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("provider calls = %d, want 1", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM attempts`); n != 1 {
		t.Fatalf("attempts = %d, want 1", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM outbox`); n != 2 {
		t.Fatalf("outbox rows = %d, want 2 (one action, one invoice.committed)", n)
	}
}

func TestRerunAfterCommitMakesNoCall(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := alwaysValid()
	d := doc("a.txt", sourceText)
	first := runDocs(t, newRunner(e, p, "default"), d)
	if first.CommittedNow != 1 {
		t.Fatalf("first run committed %d", first.CommittedNow)
	}
	// The acknowledgement is lost: the process died after the commit, so
	// the same delivery is made again by a new run.
	second := runDocs(t, newRunner(e, p, "default"), d)
	if p.calls.Load() != 1 {
		t.Fatalf("provider calls = %d, want 1", p.calls.Load())
	}
	if second.CommittedNow != 0 || second.AlreadyCommitted != 1 || second.Attempts != 0 {
		t.Fatalf("rerun summary: %+v", second)
	}
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 1 {
		t.Fatalf("results = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM outbox`); n != 2 {
		t.Fatalf("outbox = %d", n)
	}
}

func TestRepairAfterValidationFailure(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var feedback []*schema.ValidationError
	p := &fakeProvider{ExtractFunc: func(n int64, req *extract.Request) (*extract.Response, error) {
		feedback = append(feedback, req.Feedback)
		if n == 1 {
			return answer(`{"schema_version":"invoice-summary-v1","Title":"x"}`), nil
		}
		return answer(validAnswer), nil
	}}
	r := newRunner(e, p, "default")
	r.Concurrency = 1
	r.Repair = 1
	s := runDocs(t, r, doc("a.txt", sourceText))
	if s.CommittedNow != 1 || s.Attempts != 2 {
		t.Fatalf("summary: %+v", s)
	}
	rows, err := sqlitetest.ReadOnly(t, e.Store.Path()).Query(`SELECT attempt_no, outcome, category FROM attempts ORDER BY attempt_no`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var no int
		var outcome, cat string
		if err := rows.Scan(&no, &outcome, &cat); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%s:%s", no, outcome, cat))
	}
	want := "[1:rejected:unknown_field 2:succeeded:]"
	if fmt.Sprint(got) != want {
		t.Fatalf("attempts = %v, want %s", got, want)
	}
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 1 {
		t.Fatalf("results = %d", n)
	}
	if feedback[0] != nil || feedback[1] == nil || feedback[1].Category != schema.CategoryUnknownField {
		t.Fatalf("feedback = %v", feedback)
	}
}

func TestRejectedWithoutRepair(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		return answer(`{"schema_version":"invoice-summary-v1"} {}`), nil
	}}
	s := runDocs(t, newRunner(e, p, "default"), doc("a.txt", sourceText))
	if s.Final.Rejected != 1 || s.Final.RejectedBy["trailing_data"] != 1 || s.NeedsReview() != 1 {
		t.Fatalf("summary: %+v", s)
	}
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 0 {
		t.Fatalf("results = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'rejected' AND last_category = 'trailing_data'`); n != 1 {
		t.Fatalf("rejected jobs = %d", n)
	}
}

func TestTwoTenantsTwoResults(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := alwaysValid()
	d := doc("a.txt", sourceText)
	runDocs(t, newRunner(e, p, "alpha"), d)
	runDocs(t, newRunner(e, p, "beta"), d)
	if n := e.Count(t, `SELECT count(DISTINCT tenant) FROM results`); n != 2 {
		t.Fatalf("tenants with results = %d, want 2", n)
	}
	if n := e.Count(t, `SELECT count(DISTINCT job_key) FROM results`); n != 2 {
		t.Fatalf("distinct job keys = %d, want 2", n)
	}
	if p.calls.Load() != 2 {
		t.Fatalf("calls = %d", p.calls.Load())
	}
}

func TestChangedFileIsHeld(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := alwaysValid()
	runDocs(t, newRunner(e, p, "default"), doc("a.txt", sourceText))
	s := runDocs(t, newRunner(e, p, "default"), doc("a.txt", sourceText+"Amended.\n"))
	if s.HeldChanged != 1 || s.Final.Held != 1 || s.CommittedNow != 0 || s.NeedsReview() != 1 {
		t.Fatalf("summary: %+v", s)
	}
	if p.calls.Load() != 1 {
		t.Fatalf("calls = %d, want 1", p.calls.Load())
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'held' AND held_reason = 'identity_conflict'`); n != 1 {
		t.Fatalf("held jobs = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 1 {
		t.Fatalf("results = %d", n)
	}
	// With --on-change=process the new text is committed beside the old.
	r := newRunner(e, p, "default")
	r.OnChange = store.OnChangeProcess
	s = runDocs(t, r, doc("a.txt", sourceText+"Amended again.\n"))
	if s.CommittedNow != 1 {
		t.Fatalf("process summary: %+v", s)
	}
}

func TestDuplicateTextUnderTwoPaths(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := alwaysValid()
	s := runDocs(t, newRunner(e, p, "default"), doc("a.txt", sourceText), doc("copy/a.txt", sourceText))
	if s.NewJobs != 1 || s.Duplicates != 1 || s.CommittedNow != 1 || p.calls.Load() != 1 {
		t.Fatalf("summary: %+v calls %d", s, p.calls.Load())
	}
}

func TestTransientFailureRetriesSameKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := &fakeProvider{ExtractFunc: func(n int64, req *extract.Request) (*extract.Response, error) {
		if n == 1 {
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: 503, Msg: "unavailable"}
		}
		return answer(validAnswer), nil
	}}
	r := newRunner(e, p, "default")
	r.Backoff, r.MaxBackoff = time.Millisecond, 2*time.Millisecond
	s := runDocs(t, r, doc("a.txt", sourceText))
	if s.CommittedNow != 1 || s.Retried != 1 || s.Attempts != 2 {
		t.Fatalf("summary: %+v", s)
	}
	if n := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome = 'retry' AND http_status = 503 AND error_class = 'transient'`); n != 1 {
		t.Fatalf("retry attempts = %d", n)
	}
	if n := e.Count(t, `SELECT count(DISTINCT job_id) FROM attempts`); n != 1 {
		t.Fatalf("jobs = %d, want the same job for both attempts", n)
	}
}

func TestAuthFailureStopsRunWithoutFailingJobs(t *testing.T) {
	t.Parallel()
	e := setup(t)
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) {
		return nil, &extract.ProviderError{Class: extract.ClassAuth, Status: 401, Msg: "set OPENAI_API_KEY"}
	}}
	r := newRunner(e, p, "default")
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	var docs []extract.Found
	for i := range 10 {
		docs = append(docs, doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i)))
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	err := r.Work(ctx)
	if err == nil || !errorsIs(err, extract.ErrAuth) {
		t.Fatalf("work err = %v, want ErrAuth", err)
	}
	if p.calls.Load() > 2 {
		t.Fatalf("calls = %d: the run should stop after the first auth failures", p.calls.Load())
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state IN ('failed','rejected')`); n != 0 {
		t.Fatalf("jobs marked failed = %d", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'queued'`); n != 10 {
		t.Fatalf("queued jobs = %d, want 10", n)
	}
}

func TestInterruptedRunGivesBackNothingHalfWritten(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := &fakeProvider{ExtractFunc: func(n int64, req *extract.Request) (*extract.Response, error) {
		if n == 3 {
			cancel() // Ctrl-C while calls are in flight
		}
		return answer(validAnswer), nil
	}}
	r := newRunner(e, p, "default")
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	var docs []extract.Found
	for i := range 20 {
		docs = append(docs, doc(fmt.Sprintf("%d.txt", i), fmt.Sprintf("%s%d\n", sourceText, i)))
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// An interrupt is not an error: Work stops claiming, lets the calls in
	// flight finish and returns nil; the run is then recorded interrupted.
	if err := r.Work(ctx); err != nil {
		t.Fatalf("work interrupted by Ctrl-C: %v, want nil", err)
	}
	if st := extract.RunStatus(ctx, nil); st != "interrupted" {
		t.Fatalf("run status = %q, want interrupted", st)
	}
	if n := e.Count(t, `SELECT count(*) FROM jobs WHERE state = 'running'`); n != 0 {
		t.Fatalf("running jobs after interrupt = %d", n)
	}
	committed := e.Count(t, `SELECT count(*) FROM results`)
	if committed == 20 || committed == 0 {
		t.Fatalf("committed = %d: want a partial run", committed)
	}
	if n := e.Count(t, `SELECT count(*) FROM attempts WHERE outcome = ''`); n != 0 {
		t.Fatalf("open attempts = %d", n)
	}
	// A rerun carries on and finishes the rest, once each.
	runDocs(t, newRunner(e, p, "default"), docs...)
	if n := e.Count(t, `SELECT count(*) FROM results`); n != 20 {
		t.Fatalf("results after rerun = %d", n)
	}
	if int(p.calls.Load()) != 20 {
		t.Fatalf("calls = %d, want 20", p.calls.Load())
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
