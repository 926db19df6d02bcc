package extract_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/anthropic"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// named is a provider under another name: the rules provider standing in
// for a synchronous "openai" (the --repair-sync path), so every text
// document routes to the batch client of that name.
type named struct {
	extract.Provider
	name string
}

func (p named) Name() string { return p.name }

// batchEnv is one batch test: a store of one engine, a fake OpenAI Batch
// API answering like the rules provider, and its client.
type batchEnv struct {
	st     store.Store
	fake   *batchfake.Server
	client extract.BatchClient
}

func newBatchEnv(t *testing.T, d driver) *batchEnv {
	t.Helper()
	return newBatchEnvOf(t, d, batchfake.OpenAI)
}

// newBatchEnvOf is newBatchEnv with the batch API of kind.
func newBatchEnvOf(t *testing.T, d driver, kind batchfake.Kind) *batchEnv {
	t.Helper()
	var fake *batchfake.Server
	var c extract.BatchClient
	var err error
	if kind == batchfake.Anthropic {
		fake = batchfake.NewAnthropic(t)
		c, err = anthropic.NewBatch(anthropic.Config{BaseURL: fake.URL, APIKey: "sk-test", Model: "claude-test"})
	} else {
		fake = batchfake.NewOpenAI(t)
		c, err = openai.NewBatch(openai.Config{BaseURL: fake.URL, APIKey: "sk-test", Model: "gpt-test"})
	}
	if err != nil {
		t.Fatal(err)
	}
	fake.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1))
	return &batchEnv{st: d.open(t), fake: fake, client: c}
}

// runner is a batch run's runner: repair 1, the rules provider as the
// synchronous "openai".
func (e *batchEnv) runner(id string) *extract.Runner {
	r := storeRunner(e.st, named{rules.New(), e.client.Name()}, id)
	r.Repair, r.LeaseFor = 1, 10*time.Second
	return r
}

// opts are fast batch options: the fake answers at once, polls are quick.
func (e *batchEnv) opts(size int) extract.BatchOptions {
	return extract.BatchOptions{Client: e.client, Size: size, PollMin: time.Millisecond, PollMax: 5 * time.Millisecond}
}

// run is one delivery through WorkBatch: begin, enqueue, work, finish.
func (e *batchEnv) run(t *testing.T, r *extract.Runner, o extract.BatchOptions, docs ...extract.Found) (*extract.Summary, *extract.BatchReport) {
	t.Helper()
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Enqueue(ctx, docs); err != nil {
		t.Fatal(err)
	}
	rep, err := r.WorkBatch(ctx, o)
	if err != nil {
		t.Fatalf("WorkBatch: %v", err)
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	return s, rep
}

// batchDocs are n invoices the rules provider reads; text i contains tag
// when mark(i) says so, for answers keyed by the document.
func batchDocs(n int, mark func(i int) string) []extract.Found {
	docs := make([]extract.Found, n)
	for i := range n {
		text := fmt.Sprintf("Acme Ltd\nInvoice %d\nTotal EUR %d.00\n", 1000+i, 10+i)
		if mark != nil {
			text += mark(i)
		}
		docs[i] = extracttest.Doc(fmt.Sprintf("inv-%03d.txt", i), text)
	}
	return docs
}

// committedOnce checks that every job of docs has exactly one result and
// one succeeded attempt, and returns every attempt of them.
func committedOnce(t *testing.T, st store.Store, docs []extract.Found) []*store.Attempt {
	t.Helper()
	ctx := context.Background()
	var all []*store.Attempt
	ids := map[int64]bool{}
	for _, d := range docs {
		key, err := extract.JobKey("default", extract.Transformation, schema.V1, d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		job, err := st.GetJob(ctx, &store.GetJobParams{Tenant: "default", Ref: key})
		if err != nil {
			t.Fatalf("job %s: %v", d.Path, err)
		}
		res, err := st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: key})
		if err != nil || job.State != store.StateSucceeded {
			t.Errorf("%s: state %s, result %v; want succeeded with a result", d.Path, job.State, err)
			continue
		}
		if ids[res.ID] {
			t.Errorf("%s: result %d shared with another job", d.Path, res.ID)
		}
		ids[res.ID] = true
		atts, err := st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: job.ID})
		if err != nil {
			t.Fatal(err)
		}
		won := 0
		for _, a := range atts {
			if a.Outcome == store.OutcomeSucceeded {
				won++
				if a.ID != res.AttemptID {
					t.Errorf("%s: succeeded attempt %d is not the result's %d", d.Path, a.ID, res.AttemptID)
				}
			}
		}
		if won != 1 {
			t.Errorf("%s: %d succeeded attempts, want 1", d.Path, won)
		}
		all = append(all, atts...)
	}
	return all
}

// One run through the batch API commits every document once, with one
// batch creation per chunk of Size requests; the batch stays in_progress
// for several polls; every attempt names its batch and request.
func TestBatchRunCommitsEveryDocumentOnce(t *testing.T) {
	t.Parallel()
	for _, d := range drivers(t) {
		for _, kind := range []batchfake.Kind{batchfake.OpenAI, batchfake.Anthropic} {
			t.Run(d.name+"/"+string(kind), func(t *testing.T) {
				t.Parallel()
				e := newBatchEnvOf(t, d, kind)
				e.fake.SetPolls(4)
				docs := batchDocs(25, nil)
				s, rep := e.run(t, e.runner("b1"), e.opts(10), docs...)
				if s.CommittedNow != 25 || s.Final.Succeeded != 25 || s.Attempts != 25 {
					t.Errorf("summary: committed %d, succeeded %d, attempts %d; want 25 each", s.CommittedNow, s.Final.Succeeded, s.Attempts)
				}
				if c := e.fake.Counts(); c.Creations != 3 || c.Retrieves < 3*4 {
					t.Errorf("fake saw %d creations and %d retrieves; want 3 (25 in chunks of 10) and at least 12 (4 polls each)",
						c.Creations, c.Retrieves)
				}
				if len(rep.Submitted) != 3 || len(rep.Collected) != 3 || len(rep.Open) != 0 {
					t.Errorf("report: %d submitted, %d collected, %d open; want 3, 3, 0", len(rep.Submitted), len(rep.Collected), len(rep.Open))
				}
				remote := map[string]bool{}
				for _, id := range e.fake.BatchIDs() {
					remote[id] = true
				}
				for _, a := range committedOnce(t, e.st, docs) {
					if !remote[a.BatchID] || !strings.HasPrefix(a.CustomID, "") || a.CustomID == "" || a.InputTokens != 100 {
						t.Errorf("attempt %d: batch %q custom id %q tokens %d; want a fake batch, a custom id, 100 input tokens",
							a.ID, a.BatchID, a.CustomID, a.InputTokens)
					}
				}
				bs, err := e.st.ListBatches(context.Background(), &store.ListBatchesParams{})
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range bs {
					if b.State != store.BatchCollected || b.RemoteID == "" || !remote[b.RemoteID] {
						t.Errorf("batch %d: state %s remote %q; want collected with a fake id", b.ID, b.State, b.RemoteID)
					}
				}
				// A rerun finds nothing to send.
				s, _ = e.run(t, e.runner("b2"), e.opts(10), docs...)
				if c := e.fake.Counts(); c.Creations != 3 || s.AlreadyCommitted != 25 {
					t.Errorf("rerun: %d creations, %d already committed; want 3 and 25", c.Creations, s.AlreadyCommitted)
				}
			})
		}
	}
}

// onceThen answers a marked document's first request with bad and every
// later one (a re-ask, a resubmission) like the rules provider.
func onceThen(bad map[string]batchfake.Outcome) batchfake.AnswerFunc {
	good := batchfake.AnswerWith(rules.New(), schema.V1)
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(customID, text string) batchfake.Outcome {
		mu.Lock()
		defer mu.Unlock()
		for mark, o := range bad {
			if strings.Contains(text, mark) && !seen[mark] {
				seen[mark] = true
				return o
			}
		}
		return good(customID, text)
	}
}

// Mixed result lines: an invalid JSON line and a refusal are re-asked (with
// the validation error) in a follow-up batch and committed; a transient
// error line waits for its retry and is sent again; an expired line and a
// missing line go back to the queue and are sent again; a 400 fails the
// job. With --repair-sync the re-asks go through the synchronous provider
// instead, and no follow-up batch is made.
func TestBatchMixedLines(t *testing.T) {
	t.Parallel()
	marks := map[string]batchfake.Outcome{
		"#invalid":   batchfake.InvalidLine(),
		"#refusal":   batchfake.Refusal(),
		"#transient": batchfake.Error(500, "server_error", "", "boom"),
		"#expired":   batchfake.Expired(),
		"#omit":      batchfake.Omit(),
		"#bad":       batchfake.Error(400, "invalid_request_error", "", "bad request"),
	}
	order := []string{"#invalid", "#refusal", "#transient", "#expired", "#omit", "#bad"}
	for _, d := range drivers(t) {
		for _, c := range []struct {
			kind batchfake.Kind
			sync bool
		}{{batchfake.OpenAI, false}, {batchfake.OpenAI, true}, {batchfake.Anthropic, false}} {
			sync := c.sync
			t.Run(fmt.Sprintf("%s/%s/repair-sync=%v", d.name, c.kind, sync), func(t *testing.T) {
				t.Parallel()
				e := newBatchEnvOf(t, d, c.kind)
				e.fake.SetAnswer(onceThen(marks))
				docs := batchDocs(10, func(i int) string {
					if i < len(order) {
						return "Note " + order[i] + "\n"
					}
					return ""
				})
				o := e.opts(100)
				o.RepairSync = sync
				s, _ := e.run(t, e.runner("m1"), o, docs...)
				ok := append(append([]extract.Found{}, docs[:5]...), docs[6:]...)
				atts := committedOnce(t, e.st, ok)
				if s.Final.Succeeded != 9 || s.Final.Failed != 1 || s.FailedNow != 1 {
					t.Errorf("final %+v failed now %d; want 9 succeeded, 1 failed (the 400)", s.Final, s.FailedNow)
				}
				bs, err := e.st.ListBatches(context.Background(), &store.ListBatchesParams{})
				if err != nil {
					t.Fatal(err)
				}
				followUps := 0
				for _, b := range bs {
					if b.Parent != 0 {
						followUps++
					}
				}
				outcomes := map[string]int{}
				syncCalls := 0
				for _, a := range atts {
					outcomes[a.Outcome]++
					if a.BatchID == "" {
						syncCalls++
					}
				}
				// invalid, refusal: rejected then re-asked; transient: retry;
				// expired, omitted: released; 9 successes.
				want := map[string]int{store.OutcomeSucceeded: 9, store.OutcomeRejected: 2, store.OutcomeRetry: 1,
					store.OutcomeReleased: 2}
				for k, n := range want {
					if outcomes[k] != n {
						t.Errorf("attempts with outcome %s: %d, want %d (all: %v)", k, outcomes[k], n, outcomes)
					}
				}
				switch {
				case !sync && (followUps != 1 || syncCalls != 0):
					t.Errorf("follow-up batches %d, synchronous attempts %d; want 1 and 0", followUps, syncCalls)
				case sync && (followUps != 0 || syncCalls != 2):
					t.Errorf("--repair-sync: follow-up batches %d, synchronous attempts %d; want 0 and 2", followUps, syncCalls)
				}
				// The re-ask carried the validation error back to the model.
				if !sync {
					var reask string
					for _, r := range e.fake.Requests() {
						if strings.Contains(r.UserText, "#invalid") && strings.HasSuffix(r.CustomID, "-2") {
							reask = string(r.Body)
						}
					}
					if reask == "" || !strings.Contains(reask, "decode") {
						t.Errorf("no re-ask of the invalid line with its validation error in the follow-up batch: %.300s", reask)
					}
				}
			})
		}
	}
}

// Two processes work one queue through the batch API at once: every job is
// submitted exactly once, and committed once.
func TestBatchTwoWorkersOneSubmissionPerJob(t *testing.T) {
	t.Parallel()
	for _, d := range drivers(t) {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, d)
			e.fake.SetPolls(3)
			docs := batchDocs(40, nil)
			enq := e.runner("enqueue")
			ctx := context.Background()
			if err := enq.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := enq.Enqueue(ctx, docs); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := e.runner(fmt.Sprintf("w%d", i))
					r.Command, r.Tenant = "work", ""
					if err := r.Begin(ctx); err != nil {
						errs[i] = err
						return
					}
					_, errs[i] = r.WorkBatch(ctx, e.opts(7))
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("worker %d: %v", i, err)
				}
			}
			committedOnce(t, e.st, docs)
			sent := map[string]int{}
			for _, r := range e.fake.Requests() {
				sent[r.CustomID]++
			}
			if len(sent) != 40 {
				t.Errorf("%d distinct requests sent, want 40", len(sent))
			}
			for id, n := range sent {
				if n != 1 {
					t.Errorf("request %s sent %d times, want once", id, n)
				}
			}
		})
	}
}

// A batch result for a job that moved on meanwhile (its lease taken over
// and the job committed by a synchronous worker) is recorded as a stale
// attempt, never committed a second time.
func TestBatchResultForJobTakenOverIsStale(t *testing.T) {
	t.Parallel()
	for _, d := range drivers(t) {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, d)
			e.fake.SetPolls(1000) // in progress until the test ends it
			docs := batchDocs(3, nil)
			ctx := context.Background()
			r := e.runner("detached")
			o := e.opts(10)
			o.Detach = true
			e.run(t, r, o, docs...)
			// A synchronous worker a day and more later finds the job's
			// hold expired, takes it over and commits it.
			late := time.Now().Add(extract.BatchWindow + time.Hour)
			w := e.runner("sync")
			w.NowFunc = func() time.Time { return late }
			w.Concurrency = 1
			if err := w.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			if err := w.Work(ctx); err != nil {
				t.Fatal(err)
			}
			committedOnce(t, e.st, docs)
			// Then the batch ends and is collected.
			e.fake.EndAll()
			c := e.runner("collector")
			c.Command, c.Tenant, c.NowFunc = "work", "", func() time.Time { return late }
			if err := c.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			co := e.opts(10)
			co.CollectOnly, co.Wait = true, true
			rep, err := c.WorkBatch(ctx, co)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Collected) != 1 {
				t.Errorf("collected %d batches, want 1", len(rep.Collected))
			}
			atts := committedOnce(t, e.st, docs)
			stale := 0
			for _, a := range atts {
				if a.Outcome == store.OutcomeStaleLease && a.BatchID != "" {
					stale++
				}
			}
			if stale != 3 {
				t.Errorf("%d stale batch attempts, want 3", stale)
			}
		})
	}
}

// The fence: a batch result for a job another worker holds now (its lease
// taken over, its call still running) is not committed, whatever the
// answer: the attempt is stale and the job stays that worker's.
func TestBatchResultForJobHeldByAnotherWorkerIsNotCommitted(t *testing.T) {
	t.Parallel()
	for _, d := range drivers(t) {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, d)
			e.fake.SetPolls(1000)
			docs := batchDocs(3, nil)
			ctx := context.Background()
			o := e.opts(10)
			o.Detach = true
			e.run(t, e.runner("detached"), o, docs...)
			late := time.Now().Add(extract.BatchWindow + time.Hour)
			leases, err := e.st.Claim(ctx, &store.ClaimParams{Tenant: "default", Owner: "other", RunID: "other", Limit: 10,
				LeaseFor: time.Hour, Now: late})
			if err != nil || len(leases) != 3 {
				t.Fatalf("take the jobs over: %d leases, %v", len(leases), err)
			}
			e.fake.EndAll()
			c := e.runner("collector")
			c.Command, c.Tenant, c.NowFunc = "work", "", func() time.Time { return late }
			if err := c.Begin(ctx); err != nil {
				t.Fatal(err)
			}
			co := e.opts(10)
			co.CollectOnly, co.Wait = true, true
			if _, err := c.WorkBatch(ctx, co); err != nil {
				t.Fatal(err)
			}
			for _, l := range leases {
				if _, err := e.st.GetResult(ctx, &store.GetResultParams{Tenant: "default", JobKey: l.JobKey}); err == nil {
					t.Errorf("job %s: committed from a batch it no longer belongs to", l.JobKey)
				}
				atts, err := e.st.ListAttempts(ctx, &store.ListAttemptsParams{JobID: l.JobID})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range atts {
					got = append(got, fmt.Sprintf("%d:%q batch %q", a.AttemptNo, a.Outcome, a.BatchID))
				}
				if len(atts) != 2 || atts[0].Outcome != store.OutcomeStaleLease || atts[0].BatchID == "" || atts[1].Outcome != "" {
					t.Errorf("job %s attempts: %v; want the batch one stale and the other worker's open", l.JobKey, got)
				}
			}
		})
	}
}
