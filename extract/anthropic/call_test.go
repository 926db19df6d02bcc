package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// sentRequest is what a loopback server saw of one request.
type sentRequest struct {
	Method, URI string
	Header      http.Header
	Length      int64
	Chunked     bool
	Body        string
}

// recorder is a loopback server that records every request and answers
// each with answer.
func recorder(t *testing.T, answer http.HandlerFunc) (*httptest.Server, func() []sentRequest) {
	t.Helper()
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
	return srv, func() []sentRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]sentRequest(nil), seen...)
	}
}

// outcome is what a call returned, in comparable form.
type outcome struct {
	Status int
	// APIErr is the API error's status, type, message, error code and
	// request id; Err any other error's text.
	APIErr, Err string
	// Message is what answer reads of a decoded message.
	Message string
}

func sdkOutcome(msg *sdk.Message, raw *http.Response, err error) outcome {
	var o outcome
	if raw != nil {
		o.Status = raw.StatusCode
	}
	var ae *sdk.Error
	switch {
	case errors.As(err, &ae):
		o.APIErr = strings.Join([]string{http.StatusText(ae.StatusCode), string(ae.Type()), ae.Message, string(ae.ErrorCode()), ae.RequestID}, "|")
	case err != nil:
		o.Err = err.Error()
	case msg == nil:
		// A null body: the SDK returned no message and no error, on which
		// invx dereferenced nil (a panic); the adapter reads an empty
		// message, which answer reports as transient "empty".
		o.Message = "|||0|0|0|0"
	default:
		var blocks []string
		for _, b := range msg.Content {
			blocks = append(blocks, b.Type+"|"+b.Name+"|"+b.Text+"|"+string(b.Input))
		}
		u := msg.Usage
		o.Message = strings.Join(append([]string{msg.Model, string(msg.StopReason), string(msg.StopDetails.Category),
			itoa(u.InputTokens), itoa(u.OutputTokens), itoa(u.CacheCreationInputTokens), itoa(u.CacheReadInputTokens)}, blocks...), "|")
	}
	return o
}

func ourOutcome(msg *message, raw *http.Response, err error) outcome {
	var o outcome
	if raw != nil {
		o.Status = raw.StatusCode
	}
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		o.APIErr = strings.Join([]string{http.StatusText(ae.StatusCode), ae.Type, ae.Message, ae.Code, ae.RequestID}, "|")
	case err != nil:
		o.Err = err.Error()
	case msg != nil:
		var blocks []string
		for _, b := range msg.Content {
			blocks = append(blocks, string(b.Type+"|"+b.Name+"|"+b.Text)+"|"+string(b.Input))
		}
		u := msg.Usage
		o.Message = strings.Join(append([]string{string(msg.Model), string(msg.StopReason), string(msg.StopDetails.Category),
			itoa(int64(u.InputTokens)), itoa(int64(u.OutputTokens)), itoa(int64(u.CacheCreationInputTokens)), itoa(int64(u.CacheReadInputTokens))}, blocks...), "|")
	}
	return o
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func jsonAnswer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// TestCallMatchesSDK sends the same Messages request through the SDK (as
// invx called it) and through the adapter, for each kind of answer, and
// wants the same bytes on the wire (method, target, every header, body)
// and the same outcome back.
func TestCallMatchesSDK(t *testing.T) {
	t.Parallel()
	answers := map[string]http.HandlerFunc{
		"tool answer": jsonAnswer(200, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x-1",`+
			`"content":[{"type":"text","text":"thinking"},{"type":"tool_use","id":"t1","name":"emit_invoice_summary","input":{"a": 1}}],`+
			`"stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":7,"cache_read_input_tokens":3}}`, "request-id", "req_1"),
		"refusal":   jsonAnswer(200, `{"model":"m","content":[],"stop_reason":"refusal","stop_details":{"type":"refusal","category":"cyber","explanation":null}}`),
		"odd kinds": jsonAnswer(200, `{"model":5,"content":{},"stop_reason":null,"usage":{"input_tokens":"x"}}`),
		"odd members": jsonAnswer(200, `{"model":"m","content":[{"type":"text","text":7},{"type":"tool_use","name":"emit_invoice_summary","input":[1]}],`+
			`"stop_reason":"end_turn","usage":{"input_tokens":"12","output_tokens":3.5}}`),
		"null body": jsonAnswer(200, `null`),
		"rate limited": jsonAnswer(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"},"request_id":"req_2"}`,
			"retry-after", "0", "request-id", "req_2"),
		"spend limit":  jsonAnswer(429, `{"type":"error","error":{"type":"rate_limit_error","message":"limit","details":{"error_code":"enforced_spend_limit_reached"}}}`),
		"numeric code": jsonAnswer(400, `{"type":"error","error":{"type":"invalid_request_error","message":{"a":1},"details":{"error_code":5}}}`),
		"flat error":   jsonAnswer(404, `{"error":"not found"}`),
		"overloaded page": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(529)
			_, _ = io.WriteString(w, "<html>overloaded</html>")
		},
		"ok, not JSON": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "hello")
		},
		"ok, broken JSON": jsonAnswer(200, `{"model":"m",`),
		"body cut short": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			_, _ = io.WriteString(w, `{"model":"m","cont`)
		},
		"error body cut short": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(500)
			_, _ = io.WriteString(w, `{"type":"error","err`)
		},
		"redirect": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/messages" {
				http.Redirect(w, r, "/v2/messages", http.StatusTemporaryRedirect)
				return
			}
			jsonAnswer(200, `{"model":"m","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn"}`)(w, r)
		},
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, seen := recorder(t, answer)
			p, err := New(Config{BaseURL: srv.URL, APIKey: "sk-ant-test", Model: "claude-x", Mode: ModeTool})
			if err != nil {
				t.Fatal(err)
			}
			req := &extract.Request{Text: extracttest.Doc("x.txt", extracttest.Invoice).Text, Schema: extracttest.V1()}
			body, _, err := p.requestBody(req)
			if err != nil {
				t.Fatal(err)
			}
			var raw *http.Response
			client := sdkClient(p, "sk-ant-test")
			msg, err := client.Messages.New(context.Background(), sdk.MessageNewParams{Model: p.model, MaxTokens: p.maxTokens},
				option.WithRequestBody("application/json", body), option.WithResponseInto(&raw))
			want := sdkOutcome(msg, raw, err)

			data, raw, err := p.ep.do(context.Background(), sdkwire.Call{Method: http.MethodPost, URL: p.ep.messagesURL,
				Header: p.ep.messagesHeader, Body: sdkwire.Bytes(body), Timeout: p.ep.timeout})
			var m message
			if err == nil {
				err = decodeJSON(raw.Header, data, &m)
			}
			got := ourOutcome(&m, raw, err)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("outcome differs from the SDK's (-sdk +ours):\n%s", d)
			}
			all := seen()
			if len(all)%2 != 0 || len(all) == 0 {
				t.Fatalf("server saw %d requests, want as many from each", len(all))
			}
			if d := cmp.Diff(all[:len(all)/2], all[len(all)/2:]); d != "" {
				t.Errorf("requests differ from the SDK's (-sdk +ours):\n%s", d)
			}
		})
	}
}

const batchJSON = `{"id":"msgbatch_1","type":"message_batch","processing_status":"ended",` +
	`"request_counts":{"processing":0,"succeeded":1,"errored":1,"canceled":0,"expired":1},` +
	`"created_at":"2026-11-01T10:00:00.5Z","expires_at":"2026-11-02T10:00:00Z","ended_at":null,"results_url":null}`

// TestBatchCallsMatchSDK makes each batch call through the SDK's Message
// Batches service and through the adapter, and wants the same requests on
// the wire and the same batch read from the answers.
func TestBatchCallsMatchSDK(t *testing.T) {
	t.Parallel()
	srv, seen := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/results"):
			w.Header().Set("Content-Type", "application/binary")
			_, _ = io.WriteString(w, `{"custom_id":"r1","result":{"type":"expired"}}`+"\n")
		case r.URL.Path == "/v1/messages/batches" && r.Method == http.MethodGet && r.URL.Query().Get("after_id") == "":
			_, _ = io.WriteString(w, `{"data":[`+batchJSON+`],"has_more":true,"first_id":"msgbatch_1","last_id":"msgbatch_1"}`)
		case r.URL.Path == "/v1/messages/batches" && r.Method == http.MethodGet:
			_, _ = io.WriteString(w, `{"data":[],"has_more":false,"first_id":null,"last_id":null}`)
		default:
			_, _ = io.WriteString(w, batchJSON)
		}
	})
	p, err := New(Config{BaseURL: srv.URL, APIKey: "sk-ant-test", Model: "claude-x"})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Batch()
	client := sdkClient(p, "sk-ant-test")
	ctx := context.Background()
	reqs := []extract.BatchRequest{{CustomID: "r1", Req: &extract.Request{Text: "INVOICE 1", Schema: extracttest.V1()}}}
	calls := []struct {
		name      string
		sdk, ours func() (any, error)
	}{
		{"create", func() (any, error) {
			m, _ := sdkParams(p, reqs[0].Req)
			b, err := client.Messages.Batches.New(ctx, sdk.MessageBatchNewParams{Requests: []sdk.MessageBatchNewParamsRequest{{
				CustomID: "r1", Params: sdk.MessageBatchNewParamsRequestParams{MaxTokens: m.MaxTokens, Messages: m.Messages,
					Model: m.Model, System: m.System, OutputConfig: m.OutputConfig}}}}, option.WithRequestTimeout(transferTimeout))
			return sdkInfo(b), err
		}, func() (any, error) {
			in, err := c.Submit(ctx, "1", reqs)
			return in, err
		}},
		{"retrieve", func() (any, error) {
			b, err := client.Messages.Batches.Get(ctx, "msgbatch_1", sdk.MessageBatchGetParams{})
			return sdkInfo(b), err
		}, func() (any, error) { return c.Status(ctx, "msgbatch_1") }},
		{"cancel", func() (any, error) {
			b, err := client.Messages.Batches.Cancel(ctx, "msgbatch_1", sdk.MessageBatchCancelParams{})
			return sdkInfo(b), err
		}, func() (any, error) { return c.Cancel(ctx, "msgbatch_1") }},
		{"list", func() (any, error) {
			var ids []string
			pager := client.Messages.Batches.ListAutoPaging(ctx, sdk.MessageBatchListParams{Limit: sdk.Int(100)})
			for pager.Next() {
				ids = append(ids, pager.Current().ID)
			}
			return ids, pager.Err()
		}, func() (any, error) {
			in, ok, err := c.Find(ctx, "1", time.Unix(0, 0), 99)
			if ok {
				return nil, errors.New("found " + in.RemoteID)
			}
			return []string{"msgbatch_1"}, err
		}},
		{"results", func() (any, error) {
			var res *http.Response
			err := client.Get(ctx, "v1/messages/batches/msgbatch_1/results", nil, &res,
				option.WithHeader("Accept", "application/x-jsonl"), option.WithRequestTimeout(transferTimeout))
			if err != nil {
				return nil, err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			return strings.Contains(string(b), `"r1"`), err
		}, func() (any, error) {
			n := 0
			err := c.Results(ctx, "msgbatch_1", func(l extract.BatchLine) error {
				if l.CustomID == "r1" && l.Expired {
					n++
				}
				return nil
			})
			return n == 1, err
		}},
	}
	for _, call := range calls {
		before := len(seen())
		want, err := call.sdk()
		if err != nil {
			t.Fatalf("%s through the SDK: %v", call.name, err)
		}
		mid := len(seen())
		got, err := call.ours()
		if err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: answer read differently (-sdk +ours):\n%s", call.name, d)
		}
		all := seen()
		if d := cmp.Diff(all[before:mid], all[mid:]); d != "" {
			t.Errorf("%s: requests differ from the SDK's (-sdk +ours):\n%s", call.name, d)
		}
		if len(all) == mid {
			t.Errorf("%s: no request sent", call.name)
		}
	}
}

// sdkInfo maps the SDK's batch object as the adapter maps its own.
func sdkInfo(b *sdk.MessageBatch) any {
	if b == nil {
		return nil
	}
	o := &batchObject{ID: b.ID, ProcessingStatus: string(b.ProcessingStatus), CreatedAt: b.CreatedAt.Format(time.RFC3339Nano)}
	rc := b.RequestCounts
	o.RequestCounts.Processing, o.RequestCounts.Succeeded, o.RequestCounts.Errored = rc.Processing, rc.Succeeded, rc.Errored
	o.RequestCounts.Canceled, o.RequestCounts.Expired = rc.Canceled, rc.Expired
	return info(o)
}

// TestBatchIDSegmentMatchesSDK: a batch id that would be sent as a dot
// segment (naming another endpoint) is refused before any request, with
// the SDK's words; any other id is escaped as the SDK escaped it.
func TestBatchIDSegmentMatchesSDK(t *testing.T) {
	t.Parallel()
	srv, seen := recorder(t, jsonAnswer(200, batchJSON))
	p, err := New(Config{BaseURL: srv.URL, APIKey: "sk-ant-test", Model: "claude-x"})
	if err != nil {
		t.Fatal(err)
	}
	client := sdkClient(p, "sk-ant-test")
	for _, id := range []string{"..", ".", "...", ".x", "%2e%2E", "..;x", ";x", "a;b", "msg batch/1", "it's(1)*"} {
		_, sdkErr := client.Messages.Batches.Get(context.Background(), id, sdk.MessageBatchGetParams{})
		_, pathErr := batchPath(id)
		if (sdkErr == nil) != (pathErr == nil) || (pathErr != nil && pathErr.Error() != sdkErr.Error()) {
			t.Errorf("id %q: error %v, the SDK's %v", id, pathErr, sdkErr)
		}
		before := len(seen())
		if _, err := p.Batch().Status(context.Background(), id); (err != nil) != (sdkErr != nil) {
			t.Errorf("id %q: Status error %v, the SDK's %v", id, err, sdkErr)
		}
		all := seen()
		if sdkErr != nil {
			if len(all) != before {
				t.Errorf("id %q: refused, yet a request was sent", id)
			}
			continue
		}
		if len(all) != before+1 || all[before-1].URI != all[before].URI {
			t.Errorf("id %q: sent %d requests, target %q, the SDK's %q", id, len(all)-before, all[len(all)-1].URI, all[before-1].URI)
		}
	}
}
