package openai_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/openai"
)

func TestNewConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       openai.Config
		wantClass extract.Class
		wantMsg   string
	}{
		{"no key for the default host", openai.Config{Model: "gpt-x"}, extract.ClassAuth, "OPENAI_API_KEY is not set"},
		{"no key for an explicit OpenAI URL", openai.Config{BaseURL: "https://api.openai.com/v1", Model: "gpt-x"},
			extract.ClassAuth, "OPENAI_API_KEY is not set"},
		{"no model", openai.Config{APIKey: "k"}, extract.ClassPermanent, "--model is required for the openai provider"},
		{"blank model", openai.Config{APIKey: "k", Model: "  "}, extract.ClassPermanent, "--model is required for the openai provider"},
		{"not http", openai.Config{BaseURL: "ftp://example.com", Model: "m"}, extract.ClassPermanent, "--base-url must be an http:// or https:// URL"},
		{"no host", openai.Config{BaseURL: "localhost:11434", Model: "m"}, extract.ClassPermanent, "--base-url must be an http:// or https:// URL"},
		{"query", openai.Config{BaseURL: "http://u:secret@localhost/v1?x=1", Model: "m"}, extract.ClassPermanent, "a query or fragment is not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := openai.New(tc.cfg)
			var pe *extract.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("New = %v, %v; want a *extract.ProviderError", p, err)
			}
			if pe.Class != tc.wantClass || !strings.Contains(pe.Msg, tc.wantMsg) {
				t.Errorf("New error = class %s msg %q, want class %s msg containing %q", pe.Class, pe.Msg, tc.wantClass, tc.wantMsg)
			}
			if strings.Contains(pe.Msg, "secret") {
				t.Errorf("message %q repeats the URL's password", pe.Msg)
			}
		})
	}
}

func TestNewLocalServerNeedsNoKey(t *testing.T) {
	t.Parallel()
	p, err := openai.New(openai.Config{BaseURL: "http://localhost:11434", Model: "llama3.2"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "openai" {
		t.Errorf("Name = %q", p.Name())
	}
}

// request is a repair-free request for the test invoice.
func request() *extract.Request {
	return &extract.Request{Tenant: "default", JobKey: "k", Attempt: 1, Text: mustNormalize(extracttest.Invoice), Schema: extracttest.V1()}
}

func TestBaseURLForms(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/", "/v1", "/v1/", "/v1//"} {
		t.Run("base"+suffix, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "", answer(extracttest.ValidAnswer))
			p, err := openai.New(openai.Config{BaseURL: f.srv.URL + suffix, Model: cfgModel})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Extract(context.Background(), request())
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Output) != extracttest.ValidAnswer || resp.RequestID != "req-1" || resp.HTTPStatus != 200 {
				t.Errorf("response = %+v", resp)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	f := newFake(t, "sk-x", answer(extracttest.ValidAnswer))
	f.maxTokens = 777
	p, err := openai.New(openai.Config{BaseURL: f.URL(), APIKey: "sk-x", Model: cfgModel, MaxTokens: 777,
		HTTPClient: &http.Client{Transport: http.DefaultTransport}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Extract(context.Background(), request()); err != nil {
		t.Fatal(err)
	}
	if got := f.Requests()[0].Header.Get("X-Stainless-Timeout"); got != "120" {
		t.Errorf("X-Stainless-Timeout = %q, want the 2m default timeout", got)
	}
}

// TestEnvironmentIgnored: OPENAI_* variables must not redirect requests,
// replace the configured key or add headers. cmd reads the environment and
// passes it in Config; the SDK must not read it again.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1/")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-custom-env\nX-Env: 1")
	for _, key := range []string{"", "sk-explicit"} {
		f := newFake(t, key, answer(extracttest.ValidAnswer))
		p, err := openai.New(openai.Config{BaseURL: f.URL(), APIKey: key, Model: cfgModel})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Extract(context.Background(), request()); err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		h := f.Requests()[0].Header
		for _, name := range []string{"OpenAI-Organization", "OpenAI-Project", "X-Env"} {
			if v := h.Get(name); v != "" {
				t.Errorf("key %q: header %s = %q came from the environment", key, name, v)
			}
		}
	}
}

// TestInterrupted: a caller's cancellation is an interruption, not a
// transient failure.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	f := newFake(t, "", func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	p, err := openai.New(openai.Config{BaseURL: f.URL(), Model: cfgModel})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err = p.Extract(ctx, request())
	if c := extract.Classify(err); c != extract.ClassInterrupted {
		t.Errorf("Classify(%v) = %s, want interrupted", err, c)
	}
}

// TestCallDeadline: the runner's own call timeout (a context deadline) is a
// transient timeout.
func TestCallDeadline(t *testing.T) {
	t.Parallel()
	f := newFake(t, "", stall)
	p, err := openai.New(openai.Config{BaseURL: f.URL(), Model: cfgModel})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	resp, err := p.Extract(ctx, request())
	var pe *extract.ProviderError
	if !errors.As(err, &pe) || pe.Class != extract.ClassTransient || pe.Category != "timeout" {
		t.Errorf("err = %v, want transient timeout", err)
	}
	if resp == nil || resp.Model != cfgModel {
		t.Errorf("resp = %+v, want the configured model", resp)
	}
}

// TestAPIKeyNeverStored runs a delivery whose server echoes the key in its
// error messages (verbatim and masked as OpenAI does) and checks that the
// key reaches no attempt row, no error and no byte of the database.
func TestAPIKeyNeverStored(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-123"
	h := setup(t, canary, nil, nil,
		apiError(500, "server_error", "", "internal error while checking key "+canary),
		apiError(401, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: sk-canar*****-123. You can find your API key at https://platform.openai.com/account/api-keys."),
	)
	h.run(t)
	if !errors.Is(h.runErr, extract.ErrAuth) {
		t.Fatalf("run error = %v, want ErrAuth", h.runErr)
	}
	for _, r := range h.fake.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+canary {
			t.Errorf("Authorization = %q: the key must be sent, in the header only", got)
		}
	}
	leaks := []string{canary, "canar"}
	for _, leak := range leaks {
		if strings.Contains(h.runErr.Error(), leak) {
			t.Errorf("run error %q contains %q", h.runErr, leak)
		}
	}
	for _, a := range h.env.Attempts(t) {
		for _, leak := range leaks {
			if strings.Contains(a.Message, leak) || strings.Contains(a.RequestID, leak) {
				t.Errorf("attempt %d (%q) contains %q", a.No, a.Message, leak)
			}
		}
	}
	if err := h.env.Store.Close(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, path := range []string{h.env.Path, h.env.Path + "-wal"} {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range leaks {
			if bytes.Contains(b, []byte(leak)) {
				t.Errorf("%s contains %q", path, leak)
			}
		}
		all = append(all, b...)
	}
	// The scan must see real rows: the job's source text is stored.
	if !bytes.Contains(all, []byte("Acme Tools Ltd")) {
		t.Error("the database bytes do not contain the source text; the scan read nothing useful")
	}
}
