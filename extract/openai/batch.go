package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/invx/invx/extract"
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
// It is safe for concurrent use.
type BatchClient struct {
	p       *Provider
	files   oai.FileService
	batches oai.BatchService
}

var _ extract.BatchClient = (*BatchClient)(nil)

// Batch returns the batch client that sends exactly what p sends
// synchronously, to the same base URL with the same key and no retries.
func (p *Provider) Batch() *BatchClient {
	return &BatchClient{p: p, files: oai.NewFileService(p.opts...), batches: oai.NewBatchService(p.opts...)}
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
	CustomID string                      `json:"custom_id"`
	Method   string                      `json:"method"`
	URL      string                      `json:"url"`
	Body     oai.ChatCompletionNewParams `json:"body"`
}

// line encodes req as one input line, newline included: the body is the
// very params Extract sends.
func (c *BatchClient) line(req extract.BatchRequest) ([]byte, error) {
	if req.Req == nil || req.Req.Schema == nil {
		return nil, fmt.Errorf("batch request %s: no request or schema", req.CustomID)
	}
	b, err := json.Marshal(inputLine{CustomID: req.CustomID, Method: "POST", URL: BatchEndpoint, Body: c.p.params(req.Req)})
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
	f, err := c.files.New(ctx, oai.FileNewParams{
		File:    oai.File(bytes.NewReader(buf.Bytes()), "invx-batch-"+tag+".jsonl", "application/jsonl"),
		Purpose: oai.FilePurposeBatch,
	}, option.WithRequestTimeout(transferTimeout))
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("upload batch %s input: %w", tag, c.p.classify(ctx, err, nil))
	}
	b, err := c.batches.New(ctx, oai.BatchNewParams{
		InputFileID:      f.ID,
		Endpoint:         oai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: oai.BatchNewParamsCompletionWindow24h,
		Metadata:         shared.Metadata{MetadataKey: tag},
	})
	if err != nil {
		return extract.BatchInfo{InputFileID: f.ID}, fmt.Errorf("create batch %s: %w", tag, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
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
	pager := c.batches.ListAutoPaging(ctx, oai.BatchListParams{Limit: oai.Int(100)})
	for pager.Next() {
		b := pager.Current()
		if b.CreatedAt < floor {
			break
		}
		if b.Metadata[MetadataKey] != tag || b.Endpoint != BatchEndpoint {
			continue
		}
		// Counts are zero while validating; once known they must agree.
		if b.RequestCounts.Total == 0 || int(b.RequestCounts.Total) == n {
			return c.info(&b), true, nil
		}
	}
	if err := pager.Err(); err != nil {
		return extract.BatchInfo{}, false, fmt.Errorf("list batches for %s: %w", tag, c.p.classify(ctx, err, nil))
	}
	return extract.BatchInfo{}, false, nil
}

// Status implements extract.BatchClient.
func (c *BatchClient) Status(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.batches.Get(ctx, remoteID)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("retrieve batch %s: %w", remoteID, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
}

// Cancel implements extract.BatchClient.
func (c *BatchClient) Cancel(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.batches.Cancel(ctx, remoteID)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("cancel batch %s: %w", remoteID, c.p.classify(ctx, err, nil))
	}
	return c.info(b), nil
}

// info maps a batch object. Expired and cancelled batches have ended too:
// their finished requests are in the output file, the rest in the error
// file as batch_expired or batch_cancelled lines.
func (c *BatchClient) info(b *oai.Batch) extract.BatchInfo {
	in := extract.BatchInfo{
		RemoteID:       b.ID,
		InputFileID:    b.InputFileID,
		Status:         string(b.Status),
		Total:          int(b.RequestCounts.Total),
		Done:           int(b.RequestCounts.Completed + b.RequestCounts.Failed),
		FailedRequests: int(b.RequestCounts.Failed),
		CreatedAt:      time.Unix(b.CreatedAt, 0).UTC(),
	}
	switch b.Status {
	case oai.BatchStatusCompleted, oai.BatchStatusExpired, oai.BatchStatusCancelled:
		in.Ended = true
	case oai.BatchStatusFailed:
		in.Ended, in.Failed = true, true
		in.Message = c.batchErrors(b)
	}
	return in
}

// batchErrors summarises why OpenAI failed a whole batch (an invalid input
// file): codes and messages, scrubbed, one line, bounded.
func (c *BatchClient) batchErrors(b *oai.Batch) string {
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
