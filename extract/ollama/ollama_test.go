package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/ollama"
)

const model = "llama3.2"

// wireRequest is what the fake decodes from POST /api/chat.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stream  *bool           `json:"stream"`
	Format  json.RawMessage `json:"format"`
	Options map[string]any  `json:"options"`
}

// step answers one call.
type step func(w http.ResponseWriter, r *http.Request)

// fake is an httptest Ollama that checks every request against the wire
// format, answers with its steps in order and fails the test on a call it
// has no step for or a step left unused.
type fake struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	steps []step
	reqs  []wireRequest
}

func newFake(t *testing.T, steps ...step) *fake {
	t.Helper()
	f := &fake{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.steps) > 0 {
			t.Errorf("fake ollama: %d stub(s) never used", len(f.steps))
		}
	})
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		f.t.Errorf("fake ollama: got %s %s, want POST /api/chat", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type = %q", ct)
	}
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		f.t.Errorf("decode request: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	body, _ := json.Marshal(raw)
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("decode request: %v", err)
	}
	if req.Model != model {
		f.t.Errorf("model = %q, want %q", req.Model, model)
	}
	if req.Stream == nil || *req.Stream {
		f.t.Errorf("stream = %s, want false (Ollama streams by default)", raw["stream"])
	}
	var format map[string]any
	if err := json.Unmarshal(req.Format, &format); err != nil || format["type"] != "object" {
		f.t.Errorf("format is not a JSON Schema object: %.80s", req.Format)
	}
	if temp, ok := req.Options["temperature"]; !ok || temp != float64(0) {
		f.t.Errorf("options.temperature = %v, want 0", temp)
	}
	if len(req.Messages) < 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" ||
		!strings.Contains(req.Messages[1].Content, "Acme Tools Ltd") {
		f.t.Errorf("messages do not start with the system prompt and the document")
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	var s step
	if len(f.steps) > 0 {
		s, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	if s == nil {
		f.t.Errorf("fake ollama: unexpected call %d", len(f.reqs))
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	s(w, r)
}

func (f *fake) requests() []wireRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireRequest(nil), f.reqs...)
}

// answer is a complete /api/chat answer.
func answer(content, doneReason string, in, out int64) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(map[string]any{
			"model": model, "created_at": "2026-11-01T10:00:00.1Z",
			"message": map[string]any{"role": "assistant", "content": content},
			"done":    true, "done_reason": doneReason, "total_duration": 812345678, "load_duration": 1234567,
			"prompt_eval_count": in, "prompt_eval_duration": 120000000, "eval_count": out, "eval_duration": 600000000,
		})
	}
}

func ok(content string) step { return answer(content, "stop", 26, 9) }

// apiError is Ollama's error body with a status.
func apiError(status int, msg string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":%q}`, msg)
	}
}

// cut promises a 1000-byte body, sends part of it and closes the connection.
func cut(t *testing.T) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
		fmt.Fprint(buf, `{"model":"llama3.2","message":{"role":"assistant","content":"{\"schema_ver`)
		buf.Flush()
	}
}

func raw(status int, contentType, body string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

func newProvider(t *testing.T, f *fake) *ollama.Provider {
	t.Helper()
	// Generous: no test here expects this timeout to fire (TestTimeoutAndInterrupt sets its own).
	p, err := ollama.New(ollama.Config{Host: f.srv.URL, Model: model, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// attempt is the part of an attempt row these tests compare.
type attempt struct {
	No                  int
	Outcome, Class, Cat string
	Status              int
	Model               string
	In, Out             int64
}

func attempts(t *testing.T, env *extracttest.Env) []attempt {
	t.Helper()
	var out []attempt
	for _, a := range env.Attempts(t) {
		out = append(out, attempt{a.No, a.Outcome, a.Class, a.Category, a.HTTPStatus, a.Model, a.InputTokens, a.OutputTokens})
	}
	return out
}

// run works one invoice through the pipeline with the fake.
func run(t *testing.T, f *fake, tune func(*extract.Runner)) (*extracttest.Env, error) {
	t.Helper()
	env := extracttest.New(t)
	r := env.Runner(newProvider(t, f))
	extracttest.NewFakeClock(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)).Use(r)
	if tune != nil {
		tune(r)
	}
	_, err := env.Run(t, r, extracttest.Doc("acme.txt", extracttest.Invoice))
	return env, err
}

func TestPipeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		steps    func(t *testing.T) []step
		tune     func(*extract.Runner)
		states   []string
		attempts []attempt
		results  int
		check    func(t *testing.T, env *extracttest.Env, reqs []wireRequest)
	}{
		{
			name:     "valid",
			steps:    func(*testing.T) []step { return []step{answer(extracttest.ValidAnswer, "stop", 412, 187)} },
			states:   []string{"succeeded"},
			attempts: []attempt{{1, "succeeded", "", "", 200, model, 412, 187}},
			results:  1,
			check: func(t *testing.T, _ *extracttest.Env, reqs []wireRequest) {
				if n := len(reqs[0].Messages); n != 2 {
					t.Errorf("first call sent %d messages, want 2", n)
				}
				if got := reqs[0].Messages[0].Content; got != extracttest.V1().Prompt() {
					t.Errorf("system message is not the version's prompt")
				}
				if got, want := reqs[0].Messages[1].Content, extracttest.V1().UserMessage(extracttest.Invoice); got != want {
					t.Errorf("user message = %q, want %q", got, want)
				}
			},
		},
		{
			name: "500 then success",
			steps: func(*testing.T) []step {
				return []step{apiError(500, "llama runner process has terminated: exit status 2"), ok(extracttest.ValidAnswer)}
			},
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "retry", "transient", "", 500, "", 0, 0},
				{2, "succeeded", "", "", 200, model, 26, 9},
			},
			results: 1,
		},
		{
			name: "model not found",
			steps: func(*testing.T) []step {
				return []step{apiError(404, `model "llama3.2" not found, try pulling it first`)}
			},
			states:   []string{"failed"},
			attempts: []attempt{{1, "failed", "permanent", "model_not_found", 404, "", 0, 0}},
			check: func(t *testing.T, env *extracttest.Env, _ []wireRequest) {
				if msg := env.Attempts(t)[0].Message; !strings.Contains(msg, "ollama pull llama3.2") {
					t.Errorf("message %q does not say how to get the model", msg)
				}
			},
		},
		{
			name: "truncated at the token limit",
			steps: func(*testing.T) []step {
				return []step{answer(`{"schema_version":"invoice-summary-v1","title":"Invoice AT-2026`, "length", 26, 512)}
			},
			tune:     func(r *extract.Runner) { r.Repair = 0 },
			states:   []string{"rejected"},
			attempts: []attempt{{1, "rejected", "rejected", "truncated", 200, model, 26, 512}},
		},
		{
			name:   "connection cut then success",
			steps:  func(t *testing.T) []step { return []step{cut(t), ok(extracttest.ValidAnswer)} },
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "retry", "transient", "truncated_body", 0, "", 0, 0},
				{2, "succeeded", "", "", 200, model, 26, 9},
			},
			results: 1,
		},
		{
			name: "prose then repaired",
			steps: func(*testing.T) []step {
				return []step{ok("Sure! Here is the summary of the invoice you sent."), ok(extracttest.ValidAnswer)}
			},
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "rejected", "rejected", "decode", 200, model, 26, 9},
				{2, "succeeded", "", "", 200, model, 26, 9},
			},
			results: 1,
			check: func(t *testing.T, _ *extracttest.Env, reqs []wireRequest) {
				msgs := reqs[1].Messages
				if len(msgs) != 3 || msgs[2].Role != "user" {
					t.Fatalf("repair call sent %d messages, want system, document, feedback", len(msgs))
				}
				fb := msgs[2].Content
				if !strings.HasPrefix(fb, ollama.FeedbackPrefix+"decode: $: ") || !strings.HasSuffix(fb, ollama.FeedbackSuffix) {
					t.Errorf("feedback message = %q", fb)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.steps(t)...)
			env, err := run(t, f, tt.tune)
			if err != nil {
				t.Fatalf("Work: %v", err)
			}
			if diff := cmp.Diff(tt.states, env.JobStates(t)); diff != "" {
				t.Errorf("job states (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.attempts, attempts(t, env)); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if got := env.Results(t); got != tt.results {
				t.Errorf("results = %d, want %d", got, tt.results)
			}
			if tt.check != nil {
				tt.check(t, env, f.requests())
			}
		})
	}
}

func request() *extract.Request {
	return &extract.Request{Tenant: "default", JobKey: "k", Attempt: 1, Text: extracttest.Invoice, Schema: extracttest.V1()}
}

// TestErrors calls Extract directly for the classifications the pipeline
// tests do not reach.
func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		step   step
		class  extract.Class
		cat    string
		status int
	}{
		{"empty content", answer("", "stop", 26, 0), extract.ClassTransient, "empty", 200},
		{"html 200", raw(200, "text/html", "<html>proxy login</html>"), extract.ClassTransient, "bad_body", 200},
		{"200 with error", raw(200, "application/json", `{"error":"unexpected server status"}`), extract.ClassTransient, "api_error", 200},
		{"400", apiError(400, "model is required"), extract.ClassPermanent, "", 400},
		{"503", apiError(503, "server busy, please try again.  maximum pending requests exceeded"), extract.ClassTransient, "", 503},
		{"401 from a proxy", apiError(401, "unauthorized"), extract.ClassAuth, "auth", 401},
		{"404 not ollama", raw(404, "text/plain", "404 page not found"), extract.ClassPermanent, "config", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.step)
			_, err := newProvider(t, f).Extract(context.Background(), request())
			var pe *extract.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *extract.ProviderError", err)
			}
			if pe.Class != tt.class || pe.Category != tt.cat || pe.Status != tt.status {
				t.Errorf("got %s/%q/%d, want %s/%q/%d (%v)", pe.Class, pe.Category, pe.Status, tt.class, tt.cat, tt.status, err)
			}
			if strings.Contains(pe.Msg, "proxy login") || strings.Contains(pe.Msg, "Acme") {
				t.Errorf("message %q carries body or document text", pe.Msg)
			}
		})
	}
}

func TestTimeoutAndInterrupt(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	arrived := make(chan struct{}, 2)
	hang := func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	f := newFake(t, hang, hang)
	t.Cleanup(func() { close(release) })

	p, err := ollama.New(ollama.Config{Host: f.srv.URL, Model: model, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Extract(context.Background(), request())
	if pe := new(extract.ProviderError); !errors.As(err, &pe) || pe.Class != extract.ClassTransient || pe.Category != "timeout" {
		t.Errorf("timeout: err = %v, want transient timeout", err)
	}

	p, err = ollama.New(ollama.Config{Host: f.srv.URL, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	<-arrived // the timed-out request
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel only once the server holds the request, so the stub is used
	// however slow the machine is.
	go func() { <-arrived; cancel() }()
	_, err = p.Extract(ctx, request())
	if got := extract.Classify(err); got != extract.ClassInterrupted {
		t.Errorf("cancelled: class = %s (%v), want interrupted", got, err)
	}
}

func TestNumCtx(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(extracttest.ValidAnswer))
	p, err := ollama.New(ollama.Config{Host: strings.TrimPrefix(f.srv.URL, "http://"), Model: model, NumCtx: 8192})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Extract(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Output) != extracttest.ValidAnswer || resp.InputTokens != 26 || resp.OutputTokens != 9 {
		t.Errorf("response = %+v", resp)
	}
	if got := f.requests()[0].Options["num_ctx"]; got != float64(8192) {
		t.Errorf("options.num_ctx = %v, want 8192", got)
	}
}

func TestParseHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{in: "", want: "http://localhost:11434"},
		{in: "localhost:11434", want: "http://localhost:11434"},
		{in: "gpu-box", want: "http://gpu-box:11434"},
		{in: "0.0.0.0:8080", want: "http://0.0.0.0:8080"},
		{in: "[::1]:11434", want: "http://[::1]:11434"},
		{in: "::1", want: "http://[::1]:11434"},
		{in: "http://gpu-box", want: "http://gpu-box"},
		{in: "https://ollama.example.com/proxy/", want: "https://ollama.example.com/proxy/"},
		{in: " HTTP://gpu-box:9000 ", want: "http://gpu-box:9000"},
		{in: "ftp://gpu-box", err: "scheme must be http or https"},
		{in: "gpu-box:99999", err: "bad port"},
		{in: "http://", err: "no host name"},
		{in: "https://user:s3cret@host:1/", want: "https://user:s3cret@host:1"},
		{in: "ftp://user:s3cret@host", err: `"ftp://xxxxx@host"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			u, err := ollama.ParseHost(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.String() != tt.want {
				t.Errorf("ParseHost(%q) = %s, want %s", tt.in, u, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, cfg := range []ollama.Config{{}, {Model: "m", NumCtx: -1}, {Model: "m", Host: "gopher://x"}} {
		_, err := ollama.New(cfg)
		var pe *extract.ProviderError
		if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent || pe.Msg == "" {
			t.Errorf("New(%+v) = %v, want a permanent configuration error", cfg, err)
		}
	}
	p, err := ollama.New(ollama.Config{Model: "m"})
	if err != nil || p.Name() != "ollama" {
		t.Fatalf("New = %v, %v", p, err)
	}
}
