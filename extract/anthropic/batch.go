package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/invx/invx/extract"
)

// Limits of one Message Batch (PROVIDERS.md section 5): requests and
// bytes of the creation request.
const (
	BatchMaxRequests = 100_000
	BatchMaxBytes    = 256 << 20
)

// findSkew tolerates a provider clock behind ours when Find compares a
// batch's created_at with the local record's creation time.
const findSkew = 2 * time.Minute

// BatchClient submits Messages requests through the Message Batches API.
// It is safe for concurrent use.
type BatchClient struct {
	p *Provider
}

var _ extract.BatchClient = (*BatchClient)(nil)

// Batch returns the batch client that sends exactly what p sends
// synchronously, with the same key, base URL and no retries.
func (p *Provider) Batch() *BatchClient { return &BatchClient{p: p} }

// NewBatch builds the batch client for cfg (see New).
func NewBatch(cfg Config) (*BatchClient, error) {
	p, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return p.Batch(), nil
}

// Name implements extract.BatchClient.
func (*BatchClient) Name() string { return "anthropic" }

// Model implements extract.BatchClient.
func (c *BatchClient) Model() string { return c.p.model }

// Limits implements extract.BatchClient.
func (*BatchClient) Limits() (int, int64) { return BatchMaxRequests, BatchMaxBytes }

// request builds one batch request. Its params are the synchronous
// request's, field by field: the two SDK types share every field the sync
// path sets (TestBatchParamsEqualSync compares the JSON).
func (c *BatchClient) request(req extract.BatchRequest) (sdk.MessageBatchNewParamsRequest, error) {
	if req.Req == nil || req.Req.Schema == nil {
		return sdk.MessageBatchNewParamsRequest{}, fmt.Errorf("batch request %s: no request or schema", req.CustomID)
	}
	m, _ := c.p.params(req.Req)
	return sdk.MessageBatchNewParamsRequest{CustomID: req.CustomID, Params: batchParams(m)}, nil
}

// batchParams copies the fields params sets.
func batchParams(m sdk.MessageNewParams) sdk.MessageBatchNewParamsRequestParams {
	return sdk.MessageBatchNewParamsRequestParams{
		MaxTokens:     m.MaxTokens,
		Messages:      m.Messages,
		Model:         m.Model,
		System:        m.System,
		OutputConfig:  m.OutputConfig,
		Tools:         m.Tools,
		ToolChoice:    m.ToolChoice,
		StopSequences: m.StopSequences,
		Thinking:      m.Thinking,
		Metadata:      m.Metadata,
	}
}

// Size implements extract.BatchClient: the bytes req adds to the creation
// body, its comma included.
func (c *BatchClient) Size(req extract.BatchRequest) (int64, error) {
	r, err := c.request(req)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return 0, fmt.Errorf("encode batch request %s: %w", req.CustomID, err)
	}
	return int64(len(b) + 1), nil
}

// Submit implements extract.BatchClient: one creation request. The API has
// no metadata, so tag only names the batch in errors; Find matches on
// creation time and request count.
func (c *BatchClient) Submit(ctx context.Context, tag string, reqs []extract.BatchRequest) (extract.BatchInfo, error) {
	if len(reqs) == 0 {
		return extract.BatchInfo{}, errors.New("a batch needs at least one request")
	}
	if len(reqs) > BatchMaxRequests {
		return extract.BatchInfo{}, fmt.Errorf("batch %s: %d requests exceed the limit of %d", tag, len(reqs), BatchMaxRequests)
	}
	params := sdk.MessageBatchNewParams{Requests: make([]sdk.MessageBatchNewParamsRequest, 0, len(reqs))}
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if r.CustomID == "" || seen[r.CustomID] {
			return extract.BatchInfo{}, fmt.Errorf("batch %s: custom id %q is empty or repeated", tag, r.CustomID)
		}
		seen[r.CustomID] = true
		br, err := c.request(r)
		if err != nil {
			return extract.BatchInfo{}, err
		}
		params.Requests = append(params.Requests, br)
	}
	b, err := c.p.client.Messages.Batches.New(ctx, params, option.WithRequestTimeout(transferTimeout))
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("create batch %s: %w", tag, c.classify(ctx, err))
	}
	return info(b), nil
}

// Find implements extract.BatchClient: the newest batch created at or
// after since (less a clock skew) with n requests. The list is newest
// first, so the walk stops at the first older batch.
func (c *BatchClient) Find(ctx context.Context, tag string, since time.Time, n int) (extract.BatchInfo, bool, error) {
	floor := since.Add(-findSkew)
	pager := c.p.client.Messages.Batches.ListAutoPaging(ctx, sdk.MessageBatchListParams{Limit: sdk.Int(100)})
	for pager.Next() {
		b := pager.Current()
		if b.CreatedAt.Before(floor) {
			break
		}
		if in := info(&b); in.Total == n {
			return in, true, nil
		}
	}
	if err := pager.Err(); err != nil {
		return extract.BatchInfo{}, false, fmt.Errorf("list batches for %s: %w", tag, c.classify(ctx, err))
	}
	return extract.BatchInfo{}, false, nil
}

// Status implements extract.BatchClient.
func (c *BatchClient) Status(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.p.client.Messages.Batches.Get(ctx, remoteID, sdk.MessageBatchGetParams{})
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("retrieve batch %s: %w", remoteID, c.classify(ctx, err))
	}
	return info(b), nil
}

// Cancel implements extract.BatchClient.
func (c *BatchClient) Cancel(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	b, err := c.p.client.Messages.Batches.Cancel(ctx, remoteID, sdk.MessageBatchCancelParams{})
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("cancel batch %s: %w", remoteID, c.classify(ctx, err))
	}
	return info(b), nil
}

// classify turns a batch call's error into a ProviderError as the sync
// path does.
func (c *BatchClient) classify(ctx context.Context, err error) error {
	var ae *sdk.Error
	if errors.As(err, &ae) {
		return apiError(ae)
	}
	return transportError(ctx, err, nil)
}

// info maps a batch object. The API never fails a whole batch: it ends,
// with every request succeeded, errored, canceled or expired.
func info(b *sdk.MessageBatch) extract.BatchInfo {
	rc := b.RequestCounts
	finished := rc.Succeeded + rc.Errored + rc.Canceled + rc.Expired
	return extract.BatchInfo{
		RemoteID:       b.ID,
		Status:         string(b.ProcessingStatus),
		Ended:          b.ProcessingStatus == sdk.MessageBatchProcessingStatusEnded,
		Total:          int(rc.Processing + finished),
		Done:           int(finished),
		FailedRequests: int(rc.Errored + rc.Canceled + rc.Expired),
		CreatedAt:      b.CreatedAt.UTC(),
	}
}

// transferTimeout bounds the download of a batch's results: up to 100,000
// messages do not fit the per-request timeout of one message.
const transferTimeout = 15 * time.Minute
