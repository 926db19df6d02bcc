// Package ollama is the extract.Provider for Ollama's native chat API
// (POST /api/chat), spoken with plain net/http.
//
// Every call is one non-streaming request that sends the schema version's
// prompt, the document between its markers and, on a repair re-ask, the
// validation error of the previous answer; the version's JSON Schema goes in
// "format", so Ollama constrains the model's output to it. Errors are
// classified into *extract.ProviderError values whose messages carry the
// HTTP status and a truncated, sanitised server error, never document text
// or model output.
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/invx/invx/extract"
)

// Defaults for Config's zero values.
const (
	DefaultHost    = "http://localhost:11434"
	DefaultTimeout = 5 * time.Minute
	// defaultPort is Ollama's port when a host names none.
	defaultPort = "11434"
)

// maxBody bounds how much of an answer body is read. A valid document is at
// most 64 KiB of JSON; the rest is headroom for the envelope and escapes.
const maxBody = 8 << 20

// Config configures a Provider.
type Config struct {
	// Host is where Ollama listens, as OLLAMA_HOST spells it: "" is
	// DefaultHost, and "host", "host:port" and "[::1]:port" without a
	// scheme mean http with port 11434 by default. A path (a reverse proxy
	// prefix) is kept.
	Host string
	// Model is the model tag ("llama3.2", "qwen2.5:7b"); required.
	Model string
	// Timeout bounds one call (0 is DefaultTimeout). Local models can be
	// slow, and the first call also loads the model.
	Timeout time.Duration
	// NumCtx sets options.num_ctx, the context window (0 leaves the
	// model's default).
	NumCtx int
	// HTTPClient, if set, sends the requests (tests, proxies).
	HTTPClient *http.Client
}

// Provider calls Ollama's /api/chat. It is safe for concurrent use.
type Provider struct {
	url     string // the /api/chat endpoint
	host    string // the host for messages, credentials removed
	model   string
	timeout time.Duration
	numCtx  int
	client  *http.Client
}

var _ extract.Provider = (*Provider)(nil)

// New checks cfg and returns a Provider. A bad setting is a ClassPermanent
// *extract.ProviderError whose Msg names what to fix. New makes no request.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config",
			Msg: "--model is required for the ollama provider (for example --model llama3.2)"}
	}
	if cfg.NumCtx < 0 {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config",
			Msg: fmt.Sprintf("ollama num_ctx %d is negative", cfg.NumCtx)}
	}
	u, err := ParseHost(cfg.Host)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config", Msg: err.Error()}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client := cfg.HTTPClient
	if client == nil {
		// No client timeout: each call carries its own deadline.
		client = extract.HTTPClient()
	}
	endpoint := *u
	endpoint.Path = strings.TrimSuffix(u.Path, "/") + "/api/chat"
	return &Provider{url: endpoint.String(), host: u.Redacted(), model: cfg.Model, timeout: timeout,
		numCtx: cfg.NumCtx, client: client}, nil
}

// ParseHost reads a host the way Ollama reads OLLAMA_HOST: "" is
// DefaultHost; without a scheme, http is meant; without a port, 11434 is
// meant unless the scheme is given (then 80 or 443). Only http and https are
// accepted.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultHost
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "http", s
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("ollama host %q: scheme must be http or https", redactHost(s))
	}
	hostport, path, _ := strings.Cut(rest, "/")
	userinfo := ""
	if at := strings.LastIndex(hostport, "@"); at >= 0 {
		userinfo, hostport = hostport[:at], hostport[at+1:]
	}
	if hostport == "" {
		return nil, fmt.Errorf("ollama host %q: no host name", redactHost(s))
	}
	if _, port, err := net.SplitHostPort(hostport); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("ollama host %q: bad port %q", redactHost(s), extract.Truncate(port, 20))
		}
	} else if !ok {
		// "host" or "[::1]" alone: Ollama's own port.
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), defaultPort)
	}
	raw := scheme + "://"
	if userinfo != "" {
		raw += userinfo + "@"
	}
	raw += hostport
	if path != "" {
		raw += "/" + path
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("ollama host %q: not a host or URL", redactHost(s))
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// redactHost drops credentials from a host string for a message.
func redactHost(s string) string {
	if at := strings.LastIndex(s, "@"); at >= 0 {
		if i := strings.Index(s, "://"); i >= 0 && i < at {
			return extract.Truncate(s[:i+3]+"xxxxx"+s[at:], 100)
		}
		return extract.Truncate("xxxxx"+s[at:], 100)
	}
	return extract.Truncate(s, 100)
}

// Name implements extract.Provider.
func (*Provider) Name() string { return "ollama" }

// FeedbackPrefix starts the user message of a repair re-ask; the validation
// error and FeedbackSuffix follow.
const (
	FeedbackPrefix = "Your previous answer was rejected by validation: "
	FeedbackSuffix = ". Return a corrected JSON document only."
)

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type options struct {
	// Temperature is always sent: 0 asks for the most likely answer.
	Temperature float64 `json:"temperature"`
	NumCtx      int     `json:"num_ctx,omitempty"`
}

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	// Stream must be sent: Ollama streams NDJSON by default.
	Stream  bool            `json:"stream"`
	Format  json.RawMessage `json:"format"`
	Options options         `json:"options"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Message *struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int64  `json:"prompt_eval_count"`
	EvalCount       int64  `json:"eval_count"`
	Error           string `json:"error"`
}

// Extract implements extract.Provider. The answer is message.content as
// the model wrote it: prose instead of JSON is returned, not an error, so
// validation rejects it and the runner may re-ask. A truncated answer
// (done_reason "length") is ClassRejected with Category "truncated"; an
// empty one is transient. HTTP errors are classified by status (404 is
// Category "model_not_found"), transport failures by
// extract.TransportError.
func (p *Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	body, err := p.requestBody(req)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(callCtx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config", Msg: "build request", Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hresp, err := p.client.Do(hreq)
	if err != nil {
		return nil, extract.TransportError(ctx, err)
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody+1))
	if err != nil {
		return nil, extract.TransportError(ctx, err)
	}
	if len(raw) > maxBody {
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: hresp.StatusCode, Category: "body_too_large",
			Msg: fmt.Sprintf("answer body over %d bytes", maxBody)}
	}
	var cr chatResponse
	decodeErr := json.Unmarshal(raw, &cr)
	if hresp.StatusCode != http.StatusOK {
		return nil, statusError(hresp, &cr, decodeErr == nil, p)
	}
	if decodeErr != nil {
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: hresp.StatusCode, Category: "bad_body",
			Msg: fmt.Sprintf("answer body is not Ollama JSON (content-type %q)", extract.Truncate(hresp.Header.Get("Content-Type"), 60)),
			Err: decodeErr}
	}
	if cr.Error != "" {
		return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: hresp.StatusCode, Category: "api_error",
			Msg: "ollama: " + clean(cr.Error)}
	}
	resp := &extract.Response{Model: cr.Model, InputTokens: cr.PromptEvalCount, OutputTokens: cr.EvalCount,
		HTTPStatus: hresp.StatusCode}
	if resp.Model == "" {
		resp.Model = p.model
	}
	if cr.Message != nil {
		resp.Output = []byte(cr.Message.Content)
	}
	if cr.DoneReason == "length" {
		return resp, &extract.ProviderError{Class: extract.ClassRejected, Status: hresp.StatusCode, Category: "truncated",
			Msg: "the answer was cut off at the token limit (done_reason length); raise num_ctx or use a larger model"}
	}
	if len(bytes.TrimSpace(resp.Output)) == 0 {
		return resp, &extract.ProviderError{Class: extract.ClassTransient, Status: hresp.StatusCode, Category: "empty",
			Msg: fmt.Sprintf("empty answer (done_reason %q)", extract.Truncate(cr.DoneReason, 20))}
	}
	return resp, nil
}

func (p *Provider) requestBody(req *extract.Request) ([]byte, error) {
	if req.Schema == nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config", Msg: "no schema version in request"}
	}
	// The schema goes as an object, keys in the version's field order, so
	// the grammar Ollama builds from it asks for fields in that order.
	format := json.RawMessage(req.Schema.JSONSchema())
	if t := bytes.TrimSpace(format); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config",
			Msg: fmt.Sprintf("schema %s: JSON Schema is not an object", req.Schema.Name)}
	}
	msgs := []message{
		{Role: "system", Content: req.Schema.Prompt()},
		{Role: "user", Content: req.Schema.UserMessage(req.Text)},
	}
	if req.Feedback != nil {
		msgs = append(msgs, message{Role: "user", Content: FeedbackPrefix + req.Feedback.Error() + FeedbackSuffix})
	}
	body, err := json.Marshal(&chatRequest{Model: p.model, Messages: msgs, Stream: false, Format: format,
		Options: options{Temperature: 0, NumCtx: p.numCtx}})
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "encode request", Err: err}
	}
	return body, nil
}

// statusError classifies a non-200 answer. Ollama's error bodies are
// {"error":"..."}; the text is kept, cleaned and truncated, because it says
// what to fix ("model 'x' not found, try pulling it first").
func statusError(hresp *http.Response, cr *chatResponse, isJSON bool, p *Provider) *extract.ProviderError {
	status := hresp.StatusCode
	pe := &extract.ProviderError{Class: extract.ClassForStatus(status), Status: status,
		RetryAfter: extract.RetryAfter(hresp.Header, time.Now())}
	detail := ""
	if isJSON && cr.Error != "" {
		detail = clean(cr.Error)
	}
	switch {
	case status == http.StatusNotFound && detail != "":
		pe.Category = "model_not_found"
		pe.Msg = fmt.Sprintf("ollama: %s (run: ollama pull %s)", detail, extract.Truncate(p.model, 100))
	case status == http.StatusNotFound:
		// Not Ollama's JSON: the host is some other server.
		pe.Category = "config"
		pe.Msg = fmt.Sprintf("no Ollama API at %s (POST /api/chat answered 404): check --base-url or OLLAMA_HOST", p.host)
	case detail != "":
		pe.Msg = "ollama: " + detail
	default:
		pe.Msg = fmt.Sprintf("ollama answered %s", http.StatusText(status))
	}
	if pe.Class == extract.ClassAuth {
		pe.Category = "auth"
	}
	return pe
}

// clean makes a server message safe for one log line: printable runes
// only, at most 200 bytes.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	return extract.Truncate(strings.Join(strings.Fields(s), " "), 200)
}
