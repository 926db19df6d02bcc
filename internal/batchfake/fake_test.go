package batchfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/schema"
)

const key = "sk-fake-key"

// call sends method path body to the fake with its auth headers and
// returns the status and the decoded JSON answer.
func call(t *testing.T, s *batchfake.Server, method, path, contentType string, body io.Reader) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.Srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if s.Kind == batchfake.Anthropic {
		req.Header.Set("anthropic-version", "2026-10-21")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	b, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(b, &v)
	return res.StatusCode, v
}

func multipartBody(t *testing.T, name, purpose, content string) (string, io.Reader) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if purpose != "" {
		_ = mw.WriteField("purpose", purpose)
	}
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return mw.FormDataContentType(), &buf
}

const goodLine = `{"custom_id":"a-1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"<<<INVOICE\nTotal 5\nINVOICE>>>"}]}}` + "\n"

// TestOpenAIRefuses: what the real API answers 400 for, the fake does too.
func TestOpenAIRefuses(t *testing.T) {
	t.Parallel()
	s := batchfake.NewOpenAI(t)
	s.APIKey = key
	uploads := []struct {
		name, file, purpose, content string
		status                       int
	}{
		{"ok", "in.jsonl", "batch", goodLine, 200},
		{"not jsonl name", "in.txt", "batch", goodLine, 400},
		{"no purpose", "in.jsonl", "", goodLine, 400},
		{"line not JSON", "in.jsonl", "batch", goodLine + "{oops\n", 400},
	}
	var fileID string
	for _, u := range uploads {
		ct, body := multipartBody(t, u.file, u.purpose, u.content)
		status, v := call(t, s, http.MethodPost, "/v1/files", ct, body)
		if status != u.status {
			t.Errorf("upload %s: status %d, want %d (%v)", u.name, status, u.status, v)
		}
		if status == 200 {
			fileID, _ = v["id"].(string)
		}
	}
	creates := []struct {
		name, body string
		status     int
	}{
		{"unknown endpoint", `{"input_file_id":"` + fileID + `","endpoint":"/v1/chat","completion_window":"24h"}`, 400},
		{"window", `{"input_file_id":"` + fileID + `","endpoint":"/v1/chat/completions","completion_window":"1h"}`, 400},
		{"unknown file", `{"input_file_id":"file-nope","endpoint":"/v1/chat/completions","completion_window":"24h"}`, 400},
		{"ok", `{"input_file_id":"` + fileID + `","endpoint":"/v1/chat/completions","completion_window":"24h"}`, 200},
	}
	for _, c := range creates {
		if status, v := call(t, s, http.MethodPost, "/v1/batches", "application/json", strings.NewReader(c.body)); status != c.status {
			t.Errorf("create %s: status %d, want %d (%v)", c.name, status, c.status, v)
		}
	}
	s2 := batchfake.NewOpenAI(t)
	s2.APIKey = "another"
	if status, _ := call(t, s2, http.MethodGet, "/v1/batches", "", nil); status != 401 {
		t.Errorf("wrong key: status %d, want 401", status)
	}
	if got := s.Requests(); len(got) != 1 || got[0].UserText != "Total 5" {
		t.Errorf("requests = %+v", got)
	}
}

// TestOpenAIFailsBadLines: lines the API validates after upload fail the
// batch with errors.data.
func TestOpenAIFailsBadLines(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"duplicate id":  goodLine + goodLine,
		"bad id":        strings.Replace(goodLine, `"a-1"`, `"a 1"`, 1),
		"long id":       strings.Replace(goodLine, `"a-1"`, `"`+strings.Repeat("a", 65)+`"`, 1),
		"wrong url":     strings.Replace(goodLine, `"url":"/v1/chat/completions"`, `"url":"/v1/embeddings"`, 1),
		"no model":      strings.Replace(goodLine, `"model":"m",`, ``, 1),
		"mixed models":  goodLine + strings.Replace(strings.Replace(goodLine, `"m"`, `"m2"`, 1), "a-1", "a-2", 1),
		"empty request": strings.Replace(goodLine, `"messages":[{"role":"user","content":"<<<INVOICE\nTotal 5\nINVOICE>>>"}]`, `"messages":[]`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := batchfake.NewOpenAI(t)
			ct, body := multipartBody(t, "in.jsonl", "batch", content)
			_, f := call(t, s, http.MethodPost, "/v1/files", ct, body)
			_, b := call(t, s, http.MethodPost, "/v1/batches", "application/json",
				strings.NewReader(`{"input_file_id":"`+f["id"].(string)+`","endpoint":"/v1/chat/completions","completion_window":"24h"}`))
			_, got := call(t, s, http.MethodGet, "/v1/batches/"+b["id"].(string), "", nil)
			if got["status"] != "failed" || got["errors"] == nil {
				t.Errorf("batch = %v, want failed with errors", got)
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("a failed batch recorded %d requests", n)
			}
		})
	}
}

// TestAnthropicRefuses: the creation checks of the Message Batches API.
func TestAnthropicRefuses(t *testing.T) {
	t.Parallel()
	s := batchfake.NewAnthropic(t)
	req := func(id, params string) string { return `{"custom_id":"` + id + `","params":` + params + `}` }
	good := `{"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":"<<<INVOICE\nTotal 5\nINVOICE>>>"}]}`
	for _, c := range []struct {
		name, body string
		status     int
	}{
		{"no requests", `{"requests":[]}`, 400},
		{"bad id", `{"requests":[` + req("a.1", good) + `]}`, 400},
		{"long id", `{"requests":[` + req(strings.Repeat("a", 65), good) + `]}`, 400},
		{"duplicate", `{"requests":[` + req("a", good) + `,` + req("a", good) + `]}`, 400},
		{"no model", `{"requests":[` + req("a", `{"max_tokens":10,"messages":[{"role":"user","content":"x"}]}`) + `]}`, 400},
		{"no max_tokens", `{"requests":[` + req("a", `{"model":"c","messages":[{"role":"user","content":"x"}]}`) + `]}`, 400},
		{"no messages", `{"requests":[` + req("a", `{"model":"c","max_tokens":10,"messages":[]}`) + `]}`, 400},
		{"stream", `{"requests":[` + req("a", `{"model":"c","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"x"}]}`) + `]}`, 400},
		{"not JSON", `{"requests":`, 400},
		{"ok", `{"requests":[` + req("a", good) + `,` + req("b", good) + `]}`, 200},
	} {
		status, v := call(t, s, http.MethodPost, "/v1/messages/batches", "application/json", strings.NewReader(c.body))
		if status != c.status {
			t.Errorf("%s: status %d, want %d (%v)", c.name, status, c.status, v)
		}
	}
	if got := s.Requests(); len(got) != 2 || got[0].UserText != "Total 5" {
		t.Errorf("requests = %+v", got)
	}
	noVersion, _ := http.NewRequest(http.MethodGet, s.Srv.URL+"/v1/messages/batches", nil)
	noVersion.Header.Set("x-api-key", key)
	res, err := http.DefaultClient.Do(noVersion)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("no anthropic-version: status %d, want 400", res.StatusCode)
	}
}

// TestAnthropicPages: the list is newest first and pages with after_id
// and before_id as the real API does.
func TestAnthropicPages(t *testing.T) {
	t.Parallel()
	s := batchfake.NewAnthropic(t)
	body := `{"requests":[{"custom_id":"a","params":{"model":"c","max_tokens":1,"messages":[{"role":"user","content":"x"}]}}]}`
	for range 5 {
		if status, _ := call(t, s, http.MethodPost, "/v1/messages/batches", "application/json", strings.NewReader(body)); status != 200 {
			t.Fatal(status)
		}
	}
	ids := s.BatchIDs() // oldest first
	ids2 := func(v map[string]any) []string {
		var out []string
		for _, d := range v["data"].([]any) {
			out = append(out, d.(map[string]any)["id"].(string))
		}
		return out
	}
	_, p1 := call(t, s, http.MethodGet, "/v1/messages/batches?limit=2", "", nil)
	_, p2 := call(t, s, http.MethodGet, "/v1/messages/batches?limit=2&after_id="+p1["last_id"].(string), "", nil)
	_, back := call(t, s, http.MethodGet, "/v1/messages/batches?limit=2&before_id="+p2["last_id"].(string), "", nil)
	if got := strings.Join(append(ids2(p1), ids2(p2)...), ","); got != strings.Join([]string{ids[4], ids[3], ids[2], ids[1]}, ",") {
		t.Errorf("pages = %s", got)
	}
	if p1["has_more"] != true || strings.Join(ids2(back), ",") != ids[3]+","+ids[2] {
		t.Errorf("before_id page = %v, has_more %v", ids2(back), p1["has_more"])
	}
}

// TestRulesAnswer: AnswerWith(rules.New()) answers with what the rules provider extracts from the
// document the request carries.
func TestRulesAnswer(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../../fixtures/invoices/de_at_ocr_rauschen.txt")
	if err != nil {
		t.Fatal(err)
	}
	v, err := schema.Lookup(schema.V1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rules.New().Extract(context.Background(), &extract.Request{Text: string(text), Schema: v})
	if err != nil {
		t.Fatal(err)
	}
	s := batchfake.NewAnthropic(t)
	s.SetPolls(0)
	s.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1))
	params, _ := json.Marshal(map[string]any{"model": "c", "max_tokens": 10,
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": v.UserMessage(string(text))}}}}})
	body := `{"requests":[{"custom_id":"a","params":` + string(params) + `}]}`
	_, b := call(t, s, http.MethodPost, "/v1/messages/batches", "application/json", strings.NewReader(body))
	id := b["id"].(string)
	call(t, s, http.MethodGet, "/v1/messages/batches/"+id, "", nil)
	req, _ := http.NewRequest(http.MethodGet, s.Srv.URL+"/v1/messages/batches/"+id+"/results", nil)
	req.Header.Set("x-api-key", key)
	req.Header.Set("anthropic-version", "2026-10-21")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var line struct {
		Result struct {
			Message struct {
				Content []struct{ Text string }
			}
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&line); err != nil {
		t.Fatal(err)
	}
	if len(line.Result.Message.Content) != 1 || line.Result.Message.Content[0].Text != string(want.Output) {
		t.Errorf("answer = %+v, want the rules output %s", line.Result.Message.Content, want.Output)
	}
}

// TestConcurrentUse: counters and state under concurrent clients (run
// with -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s := batchfake.NewAnthropic(t)
	s.SetPolls(1)
	body := `{"requests":[{"custom_id":"a","params":{"model":"c","max_tokens":1,"messages":[{"role":"user","content":"x"}]}}]}`
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, b := call(t, s, http.MethodPost, "/v1/messages/batches", "application/json", strings.NewReader(body))
			id, _ := b["id"].(string)
			for range 3 {
				call(t, s, http.MethodGet, "/v1/messages/batches/"+id, "", nil)
				_ = s.Counts()
			}
		}()
	}
	wg.Wait()
	if c := s.Counts(); c.Creations != 8 || c.Retrieves != 24 {
		t.Errorf("counts = %+v", c)
	}
}

// TestAnsweredOnce: however many clients poll a batch at once, each
// request is answered once.
func TestAnsweredOnce(t *testing.T) {
	t.Parallel()
	s := batchfake.NewOpenAI(t)
	s.SetPolls(0)
	var calls atomic.Int64
	s.SetAnswer(func(string, string) batchfake.Outcome {
		calls.Add(1)
		time.Sleep(10 * time.Millisecond) // widen the window for a second answer
		return batchfake.Success("{}")
	})
	ct, body := multipartBody(t, "in.jsonl", "batch", goodLine)
	_, f := call(t, s, http.MethodPost, "/v1/files", ct, body)
	_, b := call(t, s, http.MethodPost, "/v1/batches", "application/json",
		strings.NewReader(`{"input_file_id":"`+f["id"].(string)+`","endpoint":"/v1/chat/completions","completion_window":"24h"}`))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				call(t, s, http.MethodGet, "/v1/batches/"+b["id"].(string), "", nil)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("AnswerFunc called %d times for one request, want 1", n)
	}
}

// TestEndAll: after EndAll the next retrieve ends every open batch.
func TestEndAll(t *testing.T) {
	t.Parallel()
	s := batchfake.NewAnthropic(t)
	s.SetPolls(100)
	body := `{"requests":[{"custom_id":"a","params":{"model":"c","max_tokens":1,"messages":[{"role":"user","content":"x"}]}}]}`
	_, b := call(t, s, http.MethodPost, "/v1/messages/batches", "application/json", strings.NewReader(body))
	if _, got := call(t, s, http.MethodGet, "/v1/messages/batches/"+b["id"].(string), "", nil); got["processing_status"] != "in_progress" {
		t.Fatalf("before EndAll: %v", got["processing_status"])
	}
	s.EndAll()
	if _, got := call(t, s, http.MethodGet, "/v1/messages/batches/"+b["id"].(string), "", nil); got["processing_status"] != "ended" {
		t.Errorf("after EndAll: %v", got["processing_status"])
	}
}
