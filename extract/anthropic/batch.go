package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
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

// batchRequest is one request of a batch: its params are the JSON object
// the synchronous path sends for the same request (TestBatchParamsEqualSync).
type batchRequest struct {
	CustomID string         `json:"custom_id"`
	Params   messageRequest `json:"params"`
}

// request builds one batch request.
func (c *BatchClient) request(req extract.BatchRequest) (batchRequest, error) {
	if req.Req == nil || req.Req.Schema == nil {
		return batchRequest{}, fmt.Errorf("batch request %s: no request or schema", req.CustomID)
	}
	m, _ := c.p.requestFor(req.Req.Schema, req.Req.Schema.UserMessage(req.Req.Text), feedbackText(req.Req))
	return batchRequest{CustomID: req.CustomID, Params: m}, nil
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
	var params struct {
		Requests []batchRequest `json:"requests"`
	}
	params.Requests = make([]batchRequest, 0, len(reqs))
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
	body, err := json.Marshal(params)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("encode batch %s: %w", tag, err)
	}
	// POST v1/messages/batches.
	b, err := c.call(ctx, http.MethodPost, "v1/messages/batches", body, transferTimeout)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("create batch %s: %w", tag, c.classify(ctx, err))
	}
	return info(b), nil
}

// call sends one request whose answer is a batch object.
func (c *BatchClient) call(ctx context.Context, method, path string, body []byte, timeout time.Duration) (*batchObject, error) {
	var b batchObject
	err := c.decode(ctx, method, path, body, timeout, &b)
	return &b, err
}

// decode sends one request and decodes its JSON answer into v.
func (c *BatchClient) decode(ctx context.Context, method, path string, body []byte, timeout time.Duration, v any) error {
	u, err := c.p.ep.url(path)
	if err != nil {
		return err
	}
	data, raw, err := c.p.ep.do(ctx, sdkwire.Call{Method: method, URL: u, Header: c.p.ep.headers(body != nil, timeout), Body: bodyOf(body), Timeout: timeout})
	if err != nil {
		return err
	}
	return decodeJSON(raw.Header, data, v)
}

// batchPath is the path of a batch, its id escaped as the SDK escaped it.
func batchPath(remoteID string) (string, error) {
	if remoteID == "" {
		return "", errors.New("missing required message_batch_id parameter")
	}
	path := "v1/messages/batches/" + escapeSegment(remoteID)
	if err := checkSegment(path, remoteID); err != nil {
		return "", err
	}
	return path, nil
}

// isDotSegment reports a path segment the SDK refused to send: "." or
// "..", alone or before a ";", dots possibly percent-encoded. Resolved
// against the base URL it would name another endpoint.
func isDotSegment(seg string) bool {
	dots := 0
	for dots < 2 {
		switch {
		case strings.HasPrefix(seg, "."):
			seg = seg[1:]
		case strings.HasPrefix(seg, "%2e"), strings.HasPrefix(seg, "%2E"):
			seg = seg[3:]
		default:
			return dots > 0 && endsSegment(seg)
		}
		dots++
	}
	return endsSegment(seg)
}

func endsSegment(rest string) bool {
	return rest == "" || strings.HasPrefix(rest, ";") || strings.HasPrefix(rest, "%3b") || strings.HasPrefix(rest, "%3B")
}

// checkSegment refuses, as the SDK did, an id that would be sent as a dot
// segment or a segment starting with ";".
func checkSegment(path, id string) error {
	seg := escapeSegment(id)
	switch {
	case isDotSegment(seg):
		return fmt.Errorf("constructed path %q contains dot segment %q which is not allowed", path, seg)
	case strings.HasPrefix(seg, ";"):
		return fmt.Errorf("constructed path %q contains segment %q which starts with \";\" and is not allowed", path, seg)
	}
	return nil
}

// escapeSegment percent-encodes a path segment as the SDK did: as
// url.PathEscape, but keeping the sub-delimiters RFC 3986 allows.
func escapeSegment(s string) string {
	if !strings.ContainsAny(s, "!'()*,;") {
		return url.PathEscape(s)
	}
	return subDelimRestorer.Replace(url.PathEscape(s))
}

var subDelimRestorer = strings.NewReplacer("%21", "!", "%27", "'", "%28", "(", "%29", ")", "%2A", "*", "%2C", ",", "%3B", ";")

// batchObject is the part of a message batch invx reads.
type batchObject struct {
	ID               string `json:"id"`
	ProcessingStatus string `json:"processing_status"`
	RequestCounts    struct {
		Processing int64 `json:"processing"`
		Succeeded  int64 `json:"succeeded"`
		Errored    int64 `json:"errored"`
		Canceled   int64 `json:"canceled"`
		Expired    int64 `json:"expired"`
	} `json:"request_counts"`
	CreatedAt string `json:"created_at"`
}

// batchPage is one page of the batch list.
type batchPage struct {
	Data    []batchObject `json:"data"`
	HasMore *bool         `json:"has_more"`
	LastID  string        `json:"last_id"`
}

// Find implements extract.BatchClient: the newest batch created at or
// after since (less a clock skew) with n requests. The list is newest
// first, so the walk stops at the first older batch.
func (c *BatchClient) Find(ctx context.Context, tag string, since time.Time, n int) (extract.BatchInfo, bool, error) {
	floor := since.Add(-findSkew)
	q := url.Values{"limit": {"100"}}
	for {
		var page batchPage
		if err := c.decode(ctx, http.MethodGet, "v1/messages/batches?"+q.Encode(), nil, c.p.ep.timeout, &page); err != nil {
			return extract.BatchInfo{}, false, fmt.Errorf("list batches for %s: %w", tag, c.classify(ctx, err))
		}
		for i := range page.Data {
			in := info(&page.Data[i])
			if in.CreatedAt.Before(floor) {
				return extract.BatchInfo{}, false, nil
			}
			if in.Total == n {
				return in, true, nil
			}
		}
		// The SDK's pager: the next page is after the page's last id,
		// unless the page was empty or says there is no more.
		if len(page.Data) == 0 || (page.HasMore != nil && !*page.HasMore) || page.LastID == "" {
			return extract.BatchInfo{}, false, nil
		}
		q.Set("after_id", page.LastID)
	}
}

// Status implements extract.BatchClient.
func (c *BatchClient) Status(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	path, err := batchPath(remoteID)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("retrieve batch %s: %w", remoteID, c.classify(ctx, err))
	}
	b, err := c.call(ctx, http.MethodGet, path, nil, c.p.ep.timeout)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("retrieve batch %s: %w", remoteID, c.classify(ctx, err))
	}
	return info(b), nil
}

// Cancel implements extract.BatchClient.
func (c *BatchClient) Cancel(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	path, err := batchPath(remoteID)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("cancel batch %s: %w", remoteID, c.classify(ctx, err))
	}
	b, err := c.call(ctx, http.MethodPost, path+"/cancel", nil, c.p.ep.timeout)
	if err != nil {
		return extract.BatchInfo{}, fmt.Errorf("cancel batch %s: %w", remoteID, c.classify(ctx, err))
	}
	return info(b), nil
}

// classify turns a batch call's error into a ProviderError as the sync
// path does.
func (c *BatchClient) classify(ctx context.Context, err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return apiErrorOf(ae)
	}
	return transportError(ctx, err, nil)
}

// info maps a batch object. The API never fails a whole batch: it ends,
// with every request succeeded, errored, canceled or expired.
func info(b *batchObject) extract.BatchInfo {
	rc := b.RequestCounts
	// A time that does not parse is left zero, as the SDK left it.
	created, _ := time.Parse(time.RFC3339, b.CreatedAt)
	finished := rc.Succeeded + rc.Errored + rc.Canceled + rc.Expired
	return extract.BatchInfo{
		RemoteID:       b.ID,
		Status:         b.ProcessingStatus,
		Ended:          b.ProcessingStatus == "ended",
		Total:          int(rc.Processing + finished),
		Done:           int(finished),
		FailedRequests: int(rc.Errored + rc.Canceled + rc.Expired),
		CreatedAt:      created.UTC(),
	}
}

// transferTimeout bounds the download of a batch's results: up to 100,000
// messages do not fit the per-request timeout of one message.
const transferTimeout = 15 * time.Minute
