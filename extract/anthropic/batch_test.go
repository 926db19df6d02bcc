package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/anthropic"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/schema"
)

// batchSetup starts a fake Message Batches API and a client for it.
func batchSetup(t *testing.T, mode string) (*batchfake.Server, *anthropic.BatchClient) {
	t.Helper()
	fake := batchfake.NewAnthropic(t)
	fake.APIKey = testKey
	c, err := anthropic.NewBatch(anthropic.Config{BaseURL: fake.URL, APIKey: testKey, Model: testModel, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return fake, c
}

// batchRequests builds n requests for distinct documents.
func batchRequests(t *testing.T, n int, v *schema.Version) []extract.BatchRequest {
	t.Helper()
	reqs := make([]extract.BatchRequest, n)
	for i := range reqs {
		key := fmt.Sprintf("%08x%056x", i+1, 0)
		reqs[i] = extract.BatchRequest{CustomID: extract.BatchCustomID(key, 1),
			Req: &extract.Request{JobKey: key, Attempt: 1, Text: fmt.Sprintf("Invoice INV-%d\nTotal EUR %d.00", i, 10+i),
				Schema: v}}
	}
	return reqs
}

func pollUntilEnded(t *testing.T, c extract.BatchClient, id string) []string {
	t.Helper()
	var seen []string
	for range 20 {
		in, err := c.Status(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, in.Status)
		if in.Ended {
			return seen
		}
	}
	t.Fatalf("batch %s did not end: %v", id, seen)
	return nil
}

// lineView is the part of a BatchLine the tests compare.
type lineView struct {
	Class, Category string
	Status          int
	Expired         bool
	Output          string
	Model           string
	In, Out         int64
}

func view(l extract.BatchLine) lineView {
	v := lineView{Expired: l.Expired}
	var pe *extract.ProviderError
	if errors.As(l.Err, &pe) {
		v.Class, v.Category, v.Status = string(pe.Class), pe.Category, pe.Status
	} else if l.Err != nil {
		v.Class = "not a ProviderError: " + l.Err.Error()
	}
	if l.Resp != nil {
		v.Output, v.Model, v.In, v.Out = string(l.Resp.Output), l.Resp.Model, l.Resp.InputTokens, l.Resp.OutputTokens
	}
	return v
}

func collect(t *testing.T, c extract.BatchClient, id string) map[string]lineView {
	t.Helper()
	got := map[string]lineView{}
	err := c.Results(context.Background(), id, func(l extract.BatchLine) error {
		if _, dup := got[l.CustomID]; dup {
			t.Errorf("line %s reported twice", l.CustomID)
		}
		got[l.CustomID] = view(l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBatchLifecycle submits, polls through in_progress and reads mixed
// results, each classified as the synchronous path classifies the same
// answer or error.
func TestBatchLifecycle(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t, "")
	fake.SetPolls(3)
	reqs := batchRequests(t, 11, extracttest.V1())
	id := func(i int) string { return reqs[i].CustomID }
	answers := map[string]batchfake.Outcome{
		id(0):  batchfake.Success(`{"a":1}`),
		id(1):  batchfake.Refusal(),
		id(2):  batchfake.Truncated(`{"a":`),
		id(3):  batchfake.Error(400, "", "", "prompt is too long: 300000 tokens > 200000 maximum"),
		id(4):  batchfake.Error(529, "", "", "Overloaded"),
		id(5):  batchfake.Error(500, "", "", "Internal server error"),
		id(6):  batchfake.Expired(),
		id(7):  batchfake.Cancelled(),
		id(8):  batchfake.InvalidLine(),
		id(9):  batchfake.Error(429, "rate_limit_error", "enforced_spend_limit_reached", "spend limit reached"),
		id(10): batchfake.Omit(),
	}
	var texts sync.Map
	fake.SetAnswer(func(cid, text string) batchfake.Outcome {
		texts.Store(cid, text)
		return answers[cid]
	})
	info, err := c.Submit(context.Background(), "17", reqs)
	if err != nil {
		t.Fatal(err)
	}
	if info.Ended || info.RemoteID == "" || info.Total != len(reqs) {
		t.Fatalf("submit: %+v", info)
	}
	if diff := cmp.Diff([]string{"in_progress", "in_progress", "in_progress", "ended"}, pollUntilEnded(t, c, info.RemoteID)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	got := collect(t, c, info.RemoteID)
	want := map[string]lineView{
		id(0): {Output: `{"a":1}`, Model: testModel, In: 100, Out: 20},
		id(1): {Class: "rejected", Category: "refusal", Model: testModel, In: 100, Out: 20},
		id(2): {Class: "rejected", Category: "truncated", Output: `{"a":`, Model: testModel, In: 100, Out: 20},
		id(3): {Class: "permanent", Category: anthropic.CategoryContextLength, Status: 400, Model: testModel},
		id(4): {Class: "transient", Category: "overloaded_error", Status: 529, Model: testModel},
		id(5): {Class: "transient", Category: "api_error", Status: 500, Model: testModel},
		id(6): {Expired: true},
		id(7): {Expired: true},
		id(8): {Class: "rejected", Category: "decode"},
		id(9): {Class: "permanent", Category: extract.CategoryQuota, Status: 429, Model: testModel},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for i, r := range reqs {
		if v, _ := texts.Load(r.CustomID); v != r.Req.Text {
			t.Errorf("request %d: the fake saw user text %q, want the document", i, v)
		}
	}
	if n := fake.Counts(); n.Creations != 1 || n.Downloads != 1 || n.Retrieves != 4 {
		t.Errorf("counts: %+v", n)
	}
}

// TestBatchToolAnswers: a request that forced the emit tool is read from
// the tool's input, in either mode.
func TestBatchToolAnswers(t *testing.T) {
	t.Parallel()
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, mode string
		v          *schema.Version
	}{
		{"tool mode", anthropic.ModeTool, extracttest.V1()},
		{"schema beyond strict", anthropic.ModeJSONSchema, v2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake, c := batchSetup(t, tc.mode)
			fake.SetPolls(0)
			fake.SetAnswer(func(string, string) batchfake.Outcome { return batchfake.Success(`{"x":1}`) })
			reqs := batchRequests(t, 1, tc.v)
			info, err := c.Submit(context.Background(), "1", reqs)
			if err != nil {
				t.Fatal(err)
			}
			pollUntilEnded(t, c, info.RemoteID)
			got := collect(t, c, info.RemoteID)
			want := map[string]lineView{reqs[0].CustomID: {Output: `{"x":1}`, Model: testModel, In: 100, Out: 20}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchFindAdopts: the client dies between creating a batch and
// recording it; Find finds the batch created since with n requests.
func TestBatchFindAdopts(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t, "")
	ctx := context.Background()
	for i := range 120 { // two list pages of older one-request batches
		if _, err := c.Submit(ctx, fmt.Sprint("old-", i), batchRequests(t, 1, extracttest.V1())); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now()
	fake.SetAfterCreateFunc(func(string) bool { return true })
	reqs := batchRequests(t, 3, extracttest.V1())
	if _, err := c.Submit(ctx, "42", reqs); err == nil {
		t.Fatal("Submit succeeded although the connection dropped")
	}
	fake.SetAfterCreateFunc(nil)
	ids := fake.BatchIDs()
	created := ids[len(ids)-1]
	for range 30 {
		if _, err := c.Submit(ctx, "newer", batchRequests(t, 2, extracttest.V1())); err != nil {
			t.Fatal(err)
		}
	}
	info, ok, err := c.Find(ctx, "42", since, len(reqs))
	if err != nil || !ok || info.RemoteID != created {
		t.Fatalf("Find = %+v, %v, %v; want batch %s", info, ok, err, created)
	}
	if _, ok, err := c.Find(ctx, "42", since, 4); err != nil || ok {
		t.Fatalf("Find of another request count = %v, %v", ok, err)
	}
	lists := fake.Counts().Lists
	if _, ok, err := c.Find(ctx, "42", since.Add(time.Hour), len(reqs)); err != nil || ok {
		t.Fatalf("Find after since = %v, %v", ok, err)
	}
	if n := fake.Counts().Lists - lists; n != 1 {
		t.Errorf("Find after since listed %d pages, want 1: the walk stops at the first older batch", n)
	}
	if info, ok, err := c.Find(ctx, "old-0", since.Add(-time.Hour), 1); err != nil || !ok || info.RemoteID != ids[119] {
		t.Fatalf("Find of a one-request batch = %+v, %v, %v; want the newest, %s", info, ok, err, ids[119])
	}
	if n := fake.Counts().Creations; n != 151 {
		t.Errorf("creations = %d, want 151", n)
	}
}

// TestBatchParamsEqualSync: each request's params are the exact JSON body
// Extract sends, in both modes, with and without repair feedback.
func TestBatchParamsEqualSync(t *testing.T) {
	t.Parallel()
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{anthropic.ModeJSONSchema, anthropic.ModeTool} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			fake, c := batchSetup(t, mode)
			var mu sync.Mutex
			var syncBodies [][]byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				syncBodies = append(syncBodies, b)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
			}))
			t.Cleanup(srv.Close)
			p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: testKey, Model: testModel, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			reqs := batchRequests(t, 3, extracttest.V1())
			reqs[1].Req.Schema = v2
			reqs[2].Req.Feedback = &schema.ValidationError{Path: "/total", Category: "type", Msg: "must be a number"}
			for _, r := range reqs {
				_, _ = p.Extract(context.Background(), r.Req) // the answer does not matter, the body does
			}
			if _, err := c.Submit(context.Background(), "7", reqs); err != nil {
				t.Fatal(err)
			}
			got := fake.Requests()
			if len(got) != len(reqs) || len(syncBodies) != len(reqs) {
				t.Fatalf("the fake got %d requests, the sync server %d, want %d", len(got), len(syncBodies), len(reqs))
			}
			for i := range reqs {
				if diff := cmp.Diff(jsonValue(t, syncBodies[i]), jsonValue(t, got[i].Body)); diff != "" {
					t.Errorf("request %d: batch params differ from the sync body (-sync +batch):\n%s", i, diff)
				}
			}
		})
	}
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v
}

// TestBatchSizeAndLimits: the sizes of the requests add up to the
// creation body, and Submit refuses what a batch may not hold.
func TestBatchSizeAndLimits(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t, "")
	if n, b := c.Limits(); n != 100_000 || b != 256<<20 {
		t.Errorf("Limits = %d, %d", n, b)
	}
	var mu sync.Mutex
	var bodyLen int
	fake.SetInterceptFunc(func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages/batches" {
			mu.Lock()
			bodyLen = int(r.ContentLength)
			mu.Unlock()
		}
		return false
	})
	reqs := batchRequests(t, 4, extracttest.V1())
	if _, err := c.Submit(context.Background(), "3", reqs); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range reqs {
		n, err := c.Size(r)
		if err != nil {
			t.Fatal(err)
		}
		sum += n
	}
	// {"requests":[ ... ]} around the requests, their commas counted in Size.
	if want := int64(len(`{"requests":[]}`)) - 1 + sum; int64(bodyLen) != want {
		t.Errorf("creation body %d bytes, sizes add up to %d", bodyLen, want)
	}
	big := make([]extract.BatchRequest, 100_001)
	for i := range big {
		big[i] = extract.BatchRequest{CustomID: fmt.Sprintf("r%d", i), Req: reqs[0].Req}
	}
	if _, err := c.Submit(context.Background(), "4", big); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("Submit of 100,001 requests = %v", err)
	}
	if _, err := c.Submit(context.Background(), "5", []extract.BatchRequest{reqs[0], reqs[0]}); err == nil {
		t.Error("Submit of a repeated custom id succeeded")
	}
	if n := fake.Counts().Creations; n != 1 {
		t.Errorf("creations = %d, want 1", n)
	}
}

// TestBatchCancel: a cancelled batch ends with its requests canceled,
// which go back to the queue.
func TestBatchCancel(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t, "")
	fake.SetPolls(5)
	reqs := batchRequests(t, 2, extracttest.V1())
	info, err := c.Submit(context.Background(), "9", reqs)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.Cancel(context.Background(), info.RemoteID)
	if err != nil || in.Status != "canceling" {
		t.Fatalf("Cancel = %+v, %v", in, err)
	}
	pollUntilEnded(t, c, info.RemoteID)
	got := collect(t, c, info.RemoteID)
	want := map[string]lineView{reqs[0].CustomID: {Expired: true}, reqs[1].CustomID: {Expired: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// TestBatchExpired: a batch that expires ends with every request it did
// not run reported Expired.
func TestBatchExpired(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t, "")
	fake.SetPolls(5)
	reqs := batchRequests(t, 2, extracttest.V1())
	info, err := c.Submit(context.Background(), "9", reqs)
	if err != nil {
		t.Fatal(err)
	}
	if !fake.Expire(info.RemoteID) {
		t.Fatal("Expire found no open batch")
	}
	if seen := pollUntilEnded(t, c, info.RemoteID); len(seen) != 1 {
		t.Errorf("statuses %v, want ended at once", seen)
	}
	end, err := c.Status(context.Background(), info.RemoteID)
	if err != nil || end.Total != 2 || end.Done != 2 || end.FailedRequests != 2 {
		t.Errorf("ended counts %+v, %v", end, err)
	}
	want := map[string]lineView{reqs[0].CustomID: {Expired: true}, reqs[1].CustomID: {Expired: true}}
	if diff := cmp.Diff(want, collect(t, c, info.RemoteID)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestBatchCreateGolden pins a creation request: custom_id and params per
// request, in both ways of asking for JSON.
func TestBatchCreateGolden(t *testing.T) {
	t.Parallel()
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	fake, c := batchSetup(t, "")
	var mu sync.Mutex
	var body []byte
	fake.SetInterceptFunc(func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages/batches" {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			mu.Lock()
			body = b
			mu.Unlock()
		}
		return false
	})
	reqs := batchRequests(t, 2, extracttest.V1())
	reqs[1].Req.Schema = v2 // beyond strict limits: a forced tool
	reqs[1].Req.Feedback = &schema.ValidationError{Path: "/total", Category: "type", Msg: "must be a number"}
	if _, err := c.Submit(context.Background(), "1", reqs); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := body
	mu.Unlock()
	path := filepath.Join("testdata", "batch_create.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Compared as JSON, not bytes: the SDK writes a tool input schema's
	// extra fields (additionalProperties, description) from a map, in
	// random order, in the sync path too.
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
