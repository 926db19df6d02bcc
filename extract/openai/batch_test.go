package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
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
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/schema"
)

const batchModel = "gpt-batch-test"

// batchSetup starts a fake Batch API and a client for it.
func batchSetup(t *testing.T) (*batchfake.Server, *openai.BatchClient) {
	t.Helper()
	fake := batchfake.NewOpenAI(t)
	fake.APIKey = "sk-batch-test"
	c, err := openai.NewBatch(openai.Config{BaseURL: fake.URL, APIKey: fake.APIKey, Model: batchModel})
	if err != nil {
		t.Fatal(err)
	}
	return fake, c
}

// batchRequests builds n requests for distinct documents.
func batchRequests(t *testing.T, n int) []extract.BatchRequest {
	t.Helper()
	reqs := make([]extract.BatchRequest, n)
	for i := range reqs {
		key := fmt.Sprintf("%08x%056x", i+1, 0)
		reqs[i] = extract.BatchRequest{CustomID: extract.BatchCustomID(key, 1),
			Req: &extract.Request{JobKey: key, Attempt: 1, Text: fmt.Sprintf("Invoice INV-%d\nTotal EUR %d.00", i, 10+i),
				Schema: extracttest.V1()}}
	}
	return reqs
}

// pollUntilEnded polls Status and returns the statuses seen.
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
	HasRequestID    bool
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
		v.Output, v.Model, v.In, v.Out, v.HasRequestID = string(l.Resp.Output), l.Resp.Model, l.Resp.InputTokens,
			l.Resp.OutputTokens, l.Resp.RequestID != ""
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
// results, each interpreted as the synchronous path interprets the same
// answer.
func TestBatchLifecycle(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	fake.SetPolls(3)
	reqs := batchRequests(t, 9)
	id := func(i int) string { return reqs[i].CustomID }
	answers := map[string]batchfake.Outcome{
		id(0): batchfake.Success("```json\n{\"a\":1}\n```"),
		id(1): batchfake.Refusal(),
		id(2): batchfake.Truncated(`{"a":`),
		id(3): batchfake.Error(400, "invalid_request_error", "context_length_exceeded", "maximum context length is 8192 tokens"),
		id(4): batchfake.Error(500, "server_error", "", "The server had an error"),
		id(5): batchfake.Expired(),
		id(6): batchfake.InvalidLine(),
		id(7): batchfake.Error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"),
		id(8): batchfake.Omit(),
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
	if info.Ended || info.RemoteID == "" || info.InputFileID == "" {
		t.Fatalf("submit: %+v", info)
	}
	if diff := cmp.Diff([]string{"in_progress", "in_progress", "in_progress", "completed"}, pollUntilEnded(t, c, info.RemoteID)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	end, err := c.Status(context.Background(), info.RemoteID)
	if err != nil {
		t.Fatal(err)
	}
	if end.Total != 9 || end.Done != 8 || end.FailedRequests != 4 || end.Failed {
		t.Errorf("ended counts: %+v", end)
	}
	got := collect(t, c, info.RemoteID)
	want := map[string]lineView{
		id(0): {Output: `{"a":1}`, Model: batchModel, In: 100, Out: 20, HasRequestID: true},
		id(1): {Class: "rejected", Category: "refusal", Output: "I'm sorry, I can't help with that.", Model: batchModel, In: 100, Out: 20, HasRequestID: true},
		id(2): {Class: "rejected", Category: "truncated", Output: `{"a":`, Model: batchModel, In: 100, Out: 20, HasRequestID: true},
		id(3): {Class: "permanent", Category: "context_length", Status: 400, Model: batchModel, HasRequestID: true},
		id(4): {Class: "transient", Status: 500, Model: batchModel, HasRequestID: true},
		id(5): {Expired: true},
		id(6): {Class: "rejected", Category: "decode"},
		id(7): {Class: "permanent", Category: extract.CategoryQuota, Status: 429, Model: batchModel, HasRequestID: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for i, r := range reqs {
		if v, _ := texts.Load(r.CustomID); v != r.Req.Text {
			t.Errorf("request %d: the fake saw user text %q, want the document", i, v)
		}
	}
	if n := fake.Counts(); n.Uploads != 1 || n.Creations != 1 || n.Downloads != 2 {
		t.Errorf("counts: %+v", n)
	}
}

// TestBatchUnreadableLine: a line without a readable custom id fails
// Results (the collector then treats its request as missing).
func TestBatchUnreadableLine(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	fake.SetPolls(0)
	fake.SetAnswer(func(string, string) batchfake.Outcome { return batchfake.Garbage() })
	info, err := c.Submit(context.Background(), "1", batchRequests(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	pollUntilEnded(t, c, info.RemoteID)
	err = c.Results(context.Background(), info.RemoteID, func(extract.BatchLine) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "names no custom_id") {
		t.Fatalf("Results = %v, want an unreadable-line error", err)
	}
}

// TestBatchFindAdopts: the client dies between creating a batch and
// recording it; Find finds it by its tag, and only it.
func TestBatchFindAdopts(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	ctx := context.Background()
	// Older batches of other tags, enough for two list pages.
	for i := range 120 {
		if _, err := c.Submit(ctx, fmt.Sprintf("old-%d", i), batchRequests(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now()
	fake.SetAfterCreateFunc(func(string) bool { return true })
	reqs := batchRequests(t, 3)
	if _, err := c.Submit(ctx, "42", reqs); err == nil {
		t.Fatal("Submit succeeded although the connection dropped")
	}
	fake.SetAfterCreateFunc(nil)
	ids := fake.BatchIDs()
	created := ids[len(ids)-1]
	for range 30 { // newer batches of other tags: the walk must pass them
		if _, err := c.Submit(ctx, "newer", batchRequests(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	info, ok, err := c.Find(ctx, "42", since, len(reqs))
	if err != nil || !ok || info.RemoteID != created {
		t.Fatalf("Find = %+v, %v, %v; want batch %s", info, ok, err, created)
	}
	if _, err := c.Status(ctx, created); err != nil { // past validating: counts known
		t.Fatal(err)
	}
	if _, ok, err := c.Find(ctx, "42", since, len(reqs)+1); err != nil || ok {
		t.Fatalf("Find with another request count = %v, %v", ok, err)
	}
	if _, ok, err := c.Find(ctx, "43", since, len(reqs)); err != nil || ok {
		t.Fatalf("Find of an unknown tag = %v, %v", ok, err)
	}
	// The oldest batch is on the second page of the list.
	if info, ok, err := c.Find(ctx, "old-0", since.Add(-time.Minute), 1); err != nil || !ok || info.RemoteID != ids[0] {
		t.Fatalf("Find across pages = %+v, %v, %v", info, ok, err)
	}
	// Batches created before since (less the clock skew) are not looked at.
	lists := fake.Counts().Lists
	if _, ok, err := c.Find(ctx, "42", since.Add(time.Hour), len(reqs)); err != nil || ok {
		t.Fatalf("Find after since = %v, %v", ok, err)
	}
	if n := fake.Counts().Lists - lists; n != 1 {
		t.Errorf("Find after since listed %d pages, want 1: the walk stops at the first older batch", n)
	}
	if n := fake.Counts().Creations; n != 151 {
		t.Errorf("creations = %d, want 151", n)
	}
}

// TestBatchBodiesEqualSync: each input line's body is the exact JSON body
// Extract sends for the same request, repair feedback included.
func TestBatchBodiesEqualSync(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	var mu sync.Mutex
	var syncBodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		syncBodies = append(syncBodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	}))
	t.Cleanup(srv.Close)
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1/", APIKey: "sk-sync", Model: batchModel})
	if err != nil {
		t.Fatal(err)
	}
	reqs := batchRequests(t, 2)
	v2, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	reqs[1].Req.Schema = v2
	reqs[1].Req.Feedback = &schema.ValidationError{Path: "/total", Category: "type", Msg: "must be a number"}
	for _, r := range reqs {
		if _, err := p.Extract(context.Background(), r.Req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Submit(context.Background(), "7", reqs); err != nil {
		t.Fatal(err)
	}
	got := fake.Requests()
	if len(got) != len(reqs) {
		t.Fatalf("the fake got %d requests, want %d", len(got), len(reqs))
	}
	for i := range reqs {
		if got[i].CustomID != reqs[i].CustomID {
			t.Errorf("request %d custom id %s, want %s", i, got[i].CustomID, reqs[i].CustomID)
		}
		if diff := cmp.Diff(jsonValue(t, syncBodies[i]), jsonValue(t, got[i].Body)); diff != "" {
			t.Errorf("request %d: batch body differs from the sync body (-sync +batch):\n%s", i, diff)
		}
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

// TestBatchSizeAndLimits: Size is each line's bytes in the uploaded file,
// and Submit refuses more requests than a batch may hold.
func TestBatchSizeAndLimits(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	if n, b := c.Limits(); n != 50_000 || b != 200<<20 {
		t.Errorf("Limits = %d, %d", n, b)
	}
	reqs := batchRequests(t, 3)
	info, err := c.Submit(context.Background(), "3", reqs)
	if err != nil {
		t.Fatal(err)
	}
	file := fake.InputFile(info.RemoteID)
	lines := bytes.SplitAfter(file, []byte("\n"))
	for i, r := range reqs {
		n, err := c.Size(r)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(lines[i])) {
			t.Errorf("Size(request %d) = %d, the line has %d bytes", i, n, len(lines[i]))
		}
	}
	big := make([]extract.BatchRequest, 50_001)
	for i := range big {
		big[i] = extract.BatchRequest{CustomID: fmt.Sprintf("r%d", i), Req: reqs[0].Req}
	}
	if _, err := c.Submit(context.Background(), "4", big); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("Submit of 50,001 requests = %v", err)
	}
	dup := []extract.BatchRequest{reqs[0], reqs[0]}
	if _, err := c.Submit(context.Background(), "5", dup); err == nil {
		t.Error("Submit of a repeated custom id succeeded")
	}
	if n := fake.Counts().Uploads; n != 1 {
		t.Errorf("uploads = %d, want 1 (refused batches upload nothing)", n)
	}
}

// TestBatchFailedValidation: a batch whose input the API refuses ends
// Failed, with the error codes (and no document text) as its message.
func TestBatchFailedValidation(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	line := `{"custom_id":"same","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"secret invoice"}]}}` + "\n"
	fileID := upload(t, fake, strings.Repeat(line, 2))
	remote := createRaw(t, fake, fileID)
	first, err := c.Status(context.Background(), remote)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != "failed" || !first.Failed || !first.Ended {
		t.Fatalf("status = %+v, want failed", first)
	}
	if !strings.Contains(first.Message, "duplicate_custom_id") || strings.Contains(first.Message, "secret") {
		t.Errorf("message = %q", first.Message)
	}
	var lines int
	if err := c.Results(context.Background(), remote, func(extract.BatchLine) error { lines++; return nil }); err != nil || lines != 0 {
		t.Errorf("Results of a failed batch = %d lines, %v", lines, err)
	}
}

func upload(t *testing.T, fake *batchfake.Server, content string) string {
	t.Helper()
	var body bytes.Buffer
	mw := newMultipart(&body, content)
	req, _ := http.NewRequest(http.MethodPost, fake.URL+"files", &body)
	req.Header.Set("Content-Type", mw)
	req.Header.Set("Authorization", "Bearer "+fake.APIKey)
	var f struct{ ID string }
	doJSON(t, req, http.StatusOK, &f)
	return f.ID
}

func createRaw(t *testing.T, fake *batchfake.Server, fileID string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, fake.URL+"batches",
		strings.NewReader(`{"input_file_id":"`+fileID+`","endpoint":"/v1/chat/completions","completion_window":"24h"}`))
	req.Header.Set("Authorization", "Bearer "+fake.APIKey)
	var b struct{ ID, Status string }
	doJSON(t, req, http.StatusOK, &b)
	if b.Status != "validating" {
		t.Errorf("created batch status %q, want validating", b.Status)
	}
	return b.ID
}

func doJSON(t *testing.T, req *http.Request, status int, v any) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("%s %s = %d %s, want %d", req.Method, req.URL.Path, res.StatusCode, b, status)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// newMultipart writes a batch upload of content to w and returns its
// content type.
func newMultipart(w io.Writer, content string) string {
	mw := multipart.NewWriter(w)
	_ = mw.WriteField("purpose", "batch")
	fw, _ := mw.CreateFormFile("file", "in.jsonl")
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return mw.FormDataContentType()
}

// TestBatchExpiredAndCancelled: a batch that expires or is cancelled ends
// with every request it did not run reported Expired (back to the queue).
func TestBatchExpiredAndCancelled(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	fake.SetPolls(5)
	ctx := context.Background()
	reqs := batchRequests(t, 2)
	expired, err := c.Submit(ctx, "1", reqs)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, err := c.Submit(ctx, "2", reqs)
	if err != nil {
		t.Fatal(err)
	}
	if !fake.Expire(expired.RemoteID) {
		t.Fatal("Expire found no open batch")
	}
	in, err := c.Cancel(ctx, cancelled.RemoteID)
	if err != nil || in.Status != "cancelling" || in.Ended {
		t.Fatalf("Cancel = %+v, %v", in, err)
	}
	for _, tc := range []struct {
		id, status string
	}{{expired.RemoteID, "expired"}, {cancelled.RemoteID, "cancelled"}} {
		seen := pollUntilEnded(t, c, tc.id)
		if last := seen[len(seen)-1]; last != tc.status {
			t.Errorf("batch %s ended %s, want %s", tc.id, last, tc.status)
		}
		want := map[string]lineView{reqs[0].CustomID: {Expired: true}, reqs[1].CustomID: {Expired: true}}
		if diff := cmp.Diff(want, collect(t, c, tc.id)); diff != "" {
			t.Errorf("batch %s lines (-want +got):\n%s", tc.id, diff)
		}
	}
	if n := fake.Counts().Cancels; n != 1 {
		t.Errorf("cancels = %d", n)
	}
}

// TestBatch2000: a 2,000-request batch answered per document (the fake
// sees each request's own text): every line comes back once, with the
// answer for its document.
func TestBatch2000(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 requests")
	}
	t.Parallel()
	fake, c := batchSetup(t)
	fake.SetPolls(1)
	answerFor := func(text string) string {
		b, _ := json.Marshal(map[string]string{"first_line": strings.SplitN(text, "\n", 2)[0]})
		return string(b)
	}
	fake.SetAnswer(func(_, text string) batchfake.Outcome { return batchfake.Success(answerFor(text)) })
	reqs := batchRequests(t, 2000)
	want := map[string]string{}
	for i, r := range reqs {
		r.Req.Text = fmt.Sprintf("RECHNUNG Nr. R-%d\nDatum: 03.02.2026\nGesamtbetrag EUR %d,50\n", i, 100+i)
		want[r.CustomID] = answerFor(r.Req.Text)
	}
	start := time.Now()
	info, err := c.Submit(context.Background(), "2000", reqs)
	if err != nil {
		t.Fatal(err)
	}
	pollUntilEnded(t, c, info.RemoteID)
	got := map[string]string{}
	err = c.Results(context.Background(), info.RemoteID, func(l extract.BatchLine) error {
		if l.Err != nil {
			return fmt.Errorf("line %s: %w", l.CustomID, l.Err)
		}
		got[l.CustomID] = string(l.Resp.Output)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	t.Logf("2,000 requests: submit, 2 polls and results in %v", time.Since(start))
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestBatchInputGolden pins the bytes of an input file: one line per
// request, custom_id, method, url and the chat completion body.
func TestBatchInputGolden(t *testing.T) {
	t.Parallel()
	fake, c := batchSetup(t)
	reqs := batchRequests(t, 2)
	reqs[1].Req.Feedback = &schema.ValidationError{Path: "/total", Category: "type", Msg: "must be a number"}
	info, err := c.Submit(context.Background(), "1", reqs)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "batch_input.jsonl", fake.InputFile(info.RemoteID))
}
