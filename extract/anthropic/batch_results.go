package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// maxResultLine bounds one results line: a message of at most max_tokens,
// with room to spare.
const maxResultLine = 64 << 20

// statusOfType is the HTTP status the Messages API answers with each error
// type (PROVIDERS.md section 5). An errored batch line carries the type
// only; the status lets it be classified exactly as the sync answer.
var statusOfType = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"timeout_error":         http.StatusGatewayTimeout,
	"overloaded_error":      529,
}

// Results implements extract.BatchClient. It reads the results JSONL
// line by line, unlike the SDK's ResultsStreaming, whose stream stops at
// the first line that is not JSON: one bad line must not hide the rest.
func (c *BatchClient) Results(ctx context.Context, remoteID string, fn func(extract.BatchLine) error) error {
	path := "v1/messages/batches/" + url.PathEscape(remoteID) + "/results"
	if err := checkSegment(path, remoteID); err != nil {
		return fmt.Errorf("download batch %s results: %w", remoteID, c.classify(ctx, err))
	}
	u, err := c.p.ep.url(path)
	if err != nil {
		return fmt.Errorf("download batch %s results: %w", remoteID, err)
	}
	h := c.p.ep.headers(false, transferTimeout)
	h.Set("Accept", "application/x-jsonl")
	_, res, err := c.p.ep.do(ctx, sdkwire.Call{Method: http.MethodGet, URL: u, Header: h, Timeout: transferTimeout, Stream: true})
	if err != nil {
		return fmt.Errorf("download batch %s results: %w", remoteID, c.classify(ctx, err))
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxResultLine)
	n := 0
	for sc.Scan() {
		n++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		line, err := c.resultLine(raw)
		if err != nil {
			return fmt.Errorf("batch %s results line %d: %w", remoteID, n, err)
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read batch %s results: %w", remoteID, extract.TransportError(ctx, err))
	}
	return nil
}

// resultLine interprets one results line as Extract would have interpreted
// the same answer. It fails only for a line without a readable custom id.
func (c *BatchClient) resultLine(raw []byte) (extract.BatchLine, error) {
	var r resultLine
	if err := json.Unmarshal(raw, &r); (err != nil && !isTypeError(err)) || r.CustomID == "" {
		return extract.UnparsedBatchLine(raw)
	}
	line := extract.BatchLine{CustomID: r.CustomID}
	switch r.Result.Type {
	case "succeeded":
		line.Resp, line.Err = c.message(&r.Result.Message)
	case "errored":
		line.Resp, line.Err = c.errored(r.Result.Error)
	case "canceled", "expired":
		line.Expired = true
	default:
		line.Err = extract.UnreadableAnswer(fmt.Sprintf("unknown result type %q", extract.Truncate(category(r.Result.Type), 40)))
	}
	return line, nil
}

// message interprets a succeeded line's message exactly as Extract
// interprets a 200 answer.
func (c *BatchClient) message(msg *message) (*extract.Response, error) {
	resp := &extract.Response{Model: c.p.model, HTTPStatus: http.StatusOK}
	msg.record(resp)
	return c.p.answer(msg, resp, c.forcedTool(msg))
}

// forcedTool reports whether the request behind msg forced the emit tool.
// The results do not carry the request: in tool mode every request does;
// in json_schema mode only those whose schema is beyond strict limits,
// and those answer with the tool (stop_reason tool_use, or a call to it).
func (c *BatchClient) forcedTool(msg *message) bool {
	if c.p.mode == ModeTool || msg.StopReason == "tool_use" {
		return true
	}
	_, ok := toolInput(msg)
	return ok
}

// errored classifies an errored line as the sync path classifies the same
// error answer: the error type gives the status.
func (c *BatchClient) errored(er json.RawMessage) (*extract.Response, error) {
	// {"type":"error","error":{"type":...,"message":...},"request_id":...}
	requestID := sdkwire.FieldString(sdkwire.Member(er, "request_id"))
	ae := newAPIError(0, requestID, nil, er)
	status, ok := statusOfType[ae.Type]
	if !ok {
		status = http.StatusInternalServerError
	}
	ae.StatusCode = status
	resp := &extract.Response{Model: c.p.model, HTTPStatus: status, RequestID: oneLine(requestID, 200)}
	return resp, apiErrorOf(ae)
}

// resultLine is one line of a batch's results.
type resultLine struct {
	CustomID string `json:"custom_id"`
	Result   struct {
		Type    string          `json:"type"`
		Message message         `json:"message"`
		Error   json.RawMessage `json:"error"`
	} `json:"result"`
}
