package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// Limits of one OpenAI batch (PROVIDERS.md section 3): requests per input
// file and bytes of the file.
const (
	BatchMaxRequests = 50_000
	BatchMaxBytes    = 200 << 20
)

// BatchEndpoint is the endpoint every line of an input file names.
const BatchEndpoint = "/v1/chat/completions"

// MetadataKey is the batch metadata key that carries the store's local
// batch id, so Find can adopt a batch whose creation was never recorded.
const MetadataKey = "invx_batch"

// transferTimeout bounds an upload or a download of a whole file: up to
// 200 MB does not fit the per-request timeout of a chat completion.
const transferTimeout = 15 * time.Minute

// findSkew tolerates a provider clock behind ours when Find compares a
// batch's created_at with the local record's creation time.
const findSkew = 2 * time.Minute

// BatchClient submits chat completion requests through the OpenAI Batch
// API: a JSONL file uploaded with purpose batch, then a batch over it.
// Its requests are the ones openai-go's Files and Batches services sent
// (TestBatchCallsMatchSDK). It is safe for concurrent use.
type BatchClient struct {
	p *Provider
}

var _ extract.BatchClient = (*BatchClient)(nil)

// Batch returns the batch client that sends exactly what p sends
// synchronously, to the same base URL with the same key and no retries.
func (p *Provider) Batch() *BatchClient {
	return &BatchClient{p: p}
}

// NewBatch builds the batch client for cfg (see New).
func NewBatch(cfg Config) (*BatchClient, error) {
	p, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return p.Batch(), nil
}

// Name implements extract.BatchClient.
func (*BatchClient) Name() string { return "openai" }

// Model implements extract.BatchClient.
func (c *BatchClient) Model() string { return c.p.model }

// Limits implements extract.BatchClient.
func (*BatchClient) Limits() (int, int64) { return BatchMaxRequests, BatchMaxBytes }

// inputLine is one line of a batch input file.
type inputLine struct {
	CustomID string    `json:"custom_id"`
	Method   string    `json:"method"`
	URL      string    `json:"url"`
	Body     batchBody `json:"body"`
}

// batchBody is the chat completion request of a batch line: the JSON
// object Extract sends, its members in the order (and with the HTML
// escaping) openai-go wrote them, so that input files stay byte for byte
// what they were (testdata/batch_input.jsonl).
type batchBody struct {
	Messages            []batchMessage `json:"messages"`
	Model               string         `json:"model"`
	MaxCompletionTokens int64          `json:"max_completion_tokens"`
	ResponseFormat      struct {
		JSONSchema struct {
			Name   string `json:"name"`
			Strict bool   `json:"strict"`
			Schema any    `json:"schema"`
		} `json:"json_schema"`
		Type string `json:"type"`
	} `json:"response_format"`
}

type batchMessage struct {
	Content string `json:"content"`
	Role    string `json:"role"`
}

// batchBody is req's request for a batch line.
func (p *Provider) batchBody(req *extract.Request) batchBody {
	b := batchBody{Model: p.model, MaxCompletionTokens: p.maxTokens, Messages: []batchMessage{
		{Content: req.Schema.Prompt(), Role: "system"},
		{Content: req.Schema.UserMessage(req.Text), Role: "user"},
	}}
	if req.Feedback != nil {
		b.Messages = append(b.Messages, batchMessage{Content: fmt.Sprintf(feedbackFormat, req.Feedback.Error()), Role: "user"})
	}
	b.ResponseFormat.Type = "json_schema"
	rf := &b.ResponseFormat.JSONSchema
	rf.Name, rf.Strict, rf.Schema = formatName(req.Schema.Name), true, responseSchema(req.Schema)
	return b
}

// line encodes req as one input line, newline included: the body is the
// very request Extract sends.
func (c *BatchClient) line(req extract.BatchRequest) ([]byte, error) {
	if req.Req == nil || req.Req.Schema == nil {
		return nil, fmt.Errorf("batch request %s: no request or schema", req.CustomID)
	}
	b, err := json.Marshal(inputLine{CustomID: req.CustomID, Method: "POST", URL: BatchEndpoint, Body: c.p.batchBody(req.Req)})
	if err != nil {
		return nil, fmt.Errorf("encode batch request %s: %w", req.CustomID, err)
	}
	return append(b, '\n'), nil
}

// Size implements extract.BatchClient: the bytes of req's input line.
func (c *BatchClient) Size(req extract.BatchRequest) (int64, error) {
	b, err := c.line(req)
	if err != nil {
		return 0, err
	}
	return int64(len(b)), nil
}

// Submit implements extract.BatchClient: one upload, one batch creation.
// A process that dies between the two leaves an unused file behind, which
// costs nothing; Find adopts a batch created but not recorded.
func (c *BatchClient) Submit(ctx context.Context, tag string, reqs []extract.BatchRequest) (extract.BatchInfo, error) {
	if err := checkRequests(reqs, BatchMaxRequests); err != nil {
		return extract.BatchInfo{}, err
	}
	var buf bytes.Buffer
	for _, r := range reqs {
		b, err := c.line(r)
		if err != nil {
			return extract.BatchInfo{}, err
		}
		buf.Write(b)
	}
	if buf.Len() > BatchMaxBytes {
		return extract.BatchInfo{}, fmt.Errorf("batch %s: %d bytes exceed the %d-byte limit of an input file", tag, buf.Len(), BatchMaxBytes)
	}
	fileID, err := c.upload(ctx, "invx-batch-"+tag+".jsonl", buf.Bytes())
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("upload batch %s input: %w", tag, c.p.classify(ctx, err, nil))
	}
	b, err := c.create(ctx, fileID, tag)
	if err != nil {
		return extract.BatchInfo{InputFileID: fileID}, fmt.Errorf("create batch %s: %w", tag, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
}

// upload sends an input file (POST files, multipart: the file, then
// purpose=batch) and returns its id.
func (c *BatchClient) upload(ctx context.Context, name string, data []byte) (string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s"`, dispositionEscaper.Replace(name)))
	h.Set("Content-Type", "application/jsonl")
	part, err := mw.CreatePart(h)
	if err != nil {
		return "", err
	}
	if _, err := part.Write(data); err != nil {
		return "", err
	}
	h = textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="purpose"`)
	if part, err = mw.CreatePart(h); err != nil {
		return "", err
	}
	if _, err := io.WriteString(part, "batch"); err != nil {
		return "", err
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	var f struct {
		ID string `json:"id"`
	}
	err = c.call(ctx, sdkwire.Call{Method: http.MethodPost, URL: c.p.ep.url("files"),
		Header: c.p.ep.headers(mw.FormDataContentType(), transferTimeout), Body: sdkwire.Bytes(buf.Bytes()), Timeout: transferTimeout}, &f)
	return f.ID, err
}

// dispositionEscaper escapes a multipart file name as the SDK did.
var dispositionEscaper = strings.NewReplacer("\\", "\\\\", `"`, `\"`, "\r", "%0D", "\n", "%0A")

// create creates the batch over an uploaded input file, tagged with the
// local batch id (POST batches).
func (c *BatchClient) create(ctx context.Context, fileID, tag string) (*batchObject, error) {
	body, err := json.Marshal(struct {
		CompletionWindow string            `json:"completion_window"`
		Endpoint         string            `json:"endpoint"`
		InputFileID      string            `json:"input_file_id"`
		Metadata         map[string]string `json:"metadata"`
	}{"24h", BatchEndpoint, fileID, map[string]string{MetadataKey: tag}})
	if err != nil {
		return nil, err
	}
	var b batchObject
	err = c.call(ctx, sdkwire.Call{Method: http.MethodPost, URL: c.p.ep.url("batches"),
		Header: c.p.ep.headers("application/json", c.p.ep.timeout), Body: sdkwire.Bytes(body), Timeout: c.p.ep.timeout}, &b)
	return &b, err
}

// get retrieves a batch (GET batches/{id}), or cancels it (POST
// batches/{id}/cancel).
func (c *BatchClient) get(ctx context.Context, remoteID string, cancel bool) (*batchObject, error) {
	if remoteID == "" {
		return nil, errors.New("missing required batch_id parameter")
	}
	method, path := http.MethodGet, "batches/"+pathParam(remoteID)
	if cancel {
		method, path = http.MethodPost, path+"/cancel"
	}
	var b batchObject
	err := c.call(ctx, sdkwire.Call{Method: method, URL: c.p.ep.url(path), Header: c.p.ep.headers("", c.p.ep.timeout),
		Timeout: c.p.ep.timeout}, &b)
	return &b, err
}

// list reads one page of batches, newest first (GET batches), after the
// batch after ("" for the first page).
func (c *BatchClient) list(ctx context.Context, after string) (*batchPage, error) {
	q := url.Values{"limit": {"100"}}
	if after != "" {
		q.Set("after", after)
	}
	var page batchPage
	err := c.call(ctx, sdkwire.Call{Method: http.MethodGet, URL: c.p.ep.url("batches?" + q.Encode()),
		Header: c.p.ep.headers("", c.p.ep.timeout), Timeout: c.p.ep.timeout}, &page)
	return &page, err
}

// call sends one request and decodes its JSON answer into v.
func (c *BatchClient) call(ctx context.Context, cl sdkwire.Call, v any) error {
	data, raw, err := c.p.ep.do(ctx, cl)
	if err != nil {
		return err
	}
	return decodeJSON(raw.Header, data, v)
}

// decodeJSON decodes an answer as the SDK did: a JSON content type, then
// its first value; a member of an unexpected kind is left empty rather
// than failing the answer, as the SDK's lenient decoder left it.
func decodeJSON(h http.Header, data []byte, v any) error {
	if !sdkwire.IsJSON(h) {
		return fmt.Errorf("expected destination type of 'string' or '[]byte' for responses with content-type '%s' that is not 'application/json'",
			h.Get("Content-Type"))
	}
	err := json.NewDecoder(bytes.NewReader(data)).Decode(v)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	return nil
}

// pathParam escapes a path segment as the SDK did.
func pathParam(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// batchObject is the part of a batch object invx reads.
type batchObject struct {
	ID            string            `json:"id"`
	InputFileID   string            `json:"input_file_id"`
	OutputFileID  string            `json:"output_file_id"`
	ErrorFileID   string            `json:"error_file_id"`
	Status        string            `json:"status"`
	Endpoint      string            `json:"endpoint"`
	CreatedAt     int64             `json:"created_at"`
	Metadata      map[string]string `json:"metadata"`
	RequestCounts struct {
		Total     int64 `json:"total"`
		Completed int64 `json:"completed"`
		Failed    int64 `json:"failed"`
	} `json:"request_counts"`
	Errors struct {
		Data []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Line    int64  `json:"line"`
		} `json:"data"`
	} `json:"errors"`
}

// batchPage is one page of the batch list.
type batchPage struct {
	Data    []batchObject `json:"data"`
	HasMore *bool         `json:"has_more"`
}

// checkRequests refuses what the API would refuse for the whole batch:
// no requests, too many, an empty or repeated custom id.
func checkRequests(reqs []extract.BatchRequest, maxRequests int) error {
	if len(reqs) == 0 {
		return fmt.Errorf("a batch needs at least one request")
	}
	if len(reqs) > maxRequests {
		return fmt.Errorf("%d requests exceed the limit of %d per batch", len(reqs), maxRequests)
	}
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if r.CustomID == "" || seen[r.CustomID] {
			return fmt.Errorf("custom id %q is empty or repeated", r.CustomID)
		}
		seen[r.CustomID] = true
	}
	return nil
}

// Find implements extract.BatchClient: the newest batch whose metadata
// names tag and that holds n requests, among those created at or after
// since. The list is newest first, so the walk stops at the first older
// batch. A batch still validating reports no request counts yet: its tag
// and time must do.
func (c *BatchClient) Find(ctx context.Context, tag string, since time.Time, n int) (extract.BatchInfo, bool, error) {
	floor := since.Add(-findSkew).Unix()
	after := ""
	for {
		page, err := c.list(ctx, after)
		if err != nil {
			return extract.BatchInfo{}, false, fmt.Errorf("list batches for %s: %w", tag, c.p.classify(ctx, err, nil))
		}
		for i := range page.Data {
			b := &page.Data[i]
			if b.CreatedAt < floor {
				return extract.BatchInfo{}, false, nil
			}
			if b.Metadata[MetadataKey] != tag || b.Endpoint != BatchEndpoint {
				continue
			}
			// Counts are zero while validating; once known they must agree.
			if b.RequestCounts.Total == 0 || int(b.RequestCounts.Total) == n {
				return c.info(b), true, nil
			}
		}
		// The SDK's pager: the next page is after the last batch, unless
		// this page was empty or says there is no more.
		if len(page.Data) == 0 || (page.HasMore != nil && !*page.HasMore) {
			return extract.BatchInfo{}, false, nil
		}
		after = page.Data[len(page.Data)-1].ID
	}
}

// Status implements extract.BatchClient.
func (c *BatchClient) Status(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.get(ctx, remoteID, false)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("retrieve batch %s: %w", remoteID, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
}

// Cancel implements extract.BatchClient.
func (c *BatchClient) Cancel(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.get(ctx, remoteID, true)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("cancel batch %s: %w", remoteID, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
}

// info maps a batch object. Expired and cancelled batches have ended too:
// their finished requests are in the output file, the rest in the error
// file as batch_expired or batch_cancelled lines.
func (c *BatchClient) info(b *batchObject) extract.BatchInfo {
	in := extract.BatchInfo{
		RemoteID:       b.ID,
		InputFileID:    b.InputFileID,
		Status:         b.Status,
		Total:          int(b.RequestCounts.Total),
		Done:           int(b.RequestCounts.Completed + b.RequestCounts.Failed),
		FailedRequests: int(b.RequestCounts.Failed),
		CreatedAt:      time.Unix(b.CreatedAt, 0).UTC(),
	}
	switch b.Status {
	case "completed", "expired", "cancelled":
		in.Ended = true
	case "failed":
		in.Ended, in.Failed = true, true
		in.Message = c.batchErrors(b)
	}
	return in
}

// batchErrors summarises why OpenAI failed a whole batch (an invalid input
// file): codes and messages, scrubbed, one line, bounded.
func (c *BatchClient) batchErrors(b *batchObject) string {
	var parts []string
	for i, e := range b.Errors.Data {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(b.Errors.Data)-i))
			break
		}
		s := capString(sanitize(c.p.scrub(e.Code)), 64)
		if m := capString(sanitize(c.p.scrub(e.Message)), 200); m != "" {
			s += ": " + m
		}
		if e.Line != 0 {
			s = fmt.Sprintf("line %d: %s", e.Line, s)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "the batch failed without error details"
	}
	return strings.Join(parts, "; ")
}
