package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
)

// sentRequest is what a loopback server saw of one request.
type sentRequest struct {
	Method, URI string
	Header      http.Header
	Length      int64
	Chunked     bool
	Body        string
}

// callOutcome is what a call returned, in comparable form.
type callOutcome struct {
	Data   string
	Status int
	// APIErr is the *openai.Error's status, type, code and message; Err
	// any other error's text.
	APIErr, Err string
}

// sdkPost is the synchronous call as the SDK made it before call.go: the
// reference TestCallMatchesSDK holds post to.
func sdkPost(ctx context.Context, p *Provider, body wireBody) (data []byte, raw *http.Response, err error) {
	sized := func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		r.ContentLength = body.Size()
		r.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
		return next(r)
	}
	chat := oai.NewChatCompletionService(sdkOptions(p)...)
	_, err = chat.New(ctx, oai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", body.Reader()), option.WithMiddleware(sized),
		option.WithResponseBodyInto(&data), option.WithResponseInto(&raw))
	return data, raw, err
}

func outcome(data []byte, raw *http.Response, err error) callOutcome {
	o := callOutcome{Data: string(data)}
	if raw != nil {
		o.Status = raw.StatusCode
	}
	var sdkErr *oai.Error
	var apiErr *apiError
	switch {
	case errors.As(err, &sdkErr):
		o.APIErr = strings.Join([]string{http.StatusText(sdkErr.StatusCode), sdkErr.Type, sdkErr.Code, sdkErr.Message}, "|")
	case errors.As(err, &apiErr):
		o.APIErr = strings.Join([]string{http.StatusText(apiErr.StatusCode), apiErr.Type, apiErr.Code, apiErr.Message}, "|")
	case err != nil:
		o.Err = err.Error()
	}
	return o
}

// TestCallMatchesSDK sends the same request through the SDK and through
// post, for each kind of answer, and wants the same bytes on the wire
// (method, target, every header, body) and the same outcome back.
func TestCallMatchesSDK(t *testing.T) {
	t.Parallel()
	answers := map[string]http.HandlerFunc{
		"ok": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"model":"m","choices":[{"message":{"content":"{}"},"finish_reason":"stop"}]}`)
		},
		"ok, not JSON": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>portal</html>")
		},
		"rate limited": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`)
		},
		"server error page": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>bad gateway</html>")
		},
		"numeric error code": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"code":400,"message":{"why":"schema"},"type":"invalid_request_error","param":null}}`)
		},
		"flat error string": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"model 'x' not found"}`)
		},
		"error array": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"error":[1]}`)
		},
		"body cut short": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			_, _ = io.WriteString(w, `{"model":"m","choi`)
		},
		"error body cut short": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"mess`)
		},
		"redirect elsewhere": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.2:1/v1/chat/completions", http.StatusTemporaryRedirect)
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var (
				mu   sync.Mutex
				seen []sentRequest
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("read request body: %v", err)
				}
				mu.Lock()
				seen = append(seen, sentRequest{Method: r.Method, URI: r.RequestURI, Header: r.Header.Clone(),
					Length: r.ContentLength, Chunked: len(r.TransferEncoding) > 0, Body: string(b)})
				mu.Unlock()
				answer(w, r)
			}))
			t.Cleanup(srv.Close)
			p, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "m-1"})
			if err != nil {
				t.Fatal(err)
			}
			req := &extract.Request{Text: mustNormalizeText(extracttest.Invoice), Schema: extracttest.V1()}
			body, err := p.requestBody(req)
			if err != nil {
				t.Fatal(err)
			}
			want := outcome(sdkPost(context.Background(), p, body))
			got := outcome(p.ep.post(context.Background(), body))
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("outcome differs from the SDK's (-sdk +post):\n%s", d)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != 2 {
				t.Fatalf("server saw %d requests, want 2 (one each)", len(seen))
			}
			if d := cmp.Diff(seen[0], seen[1]); d != "" {
				t.Errorf("request differs from the SDK's (-sdk +post):\n%s", d)
			}
			if seen[1].Body != string(body.bytes()) || seen[1].Chunked {
				t.Errorf("body on the wire is not the encoded body, or went chunked")
			}
		})
	}
}

func mustNormalizeText(s string) string { return extracttest.Doc("x.txt", s).Text }
