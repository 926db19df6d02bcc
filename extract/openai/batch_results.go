package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/internal/sdkwire"
)

// maxResultLine bounds one line of an output or error file: a chat
// completion of at most max_completion_tokens, with room to spare.
const maxResultLine = 64 << 20

// resultLine is one line of a batch's output or error file.
type resultLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Error codes of a request the batch never ran.
const (
	codeExpired   = "batch_expired"
	codeCancelled = "batch_cancelled"
)

// Results implements extract.BatchClient: the output file's lines, then
// the error file's. It retrieves the batch first to learn their ids (one
// more retrieve in the fake's counts). An ended batch without either file
// (failed, or cancelled before any request ran) has no lines. An
// unreadable line with a readable custom_id has Err set and Resp nil.
func (c *BatchClient) Results(ctx context.Context, remoteID string, fn func(extract.BatchLine) error) error {
	b, err := c.get(ctx, remoteID, false)
	if err != nil {
		return fmt.Errorf("retrieve batch %s: %w", remoteID, c.p.classify(ctx, err, nil))
	}
	for _, id := range []string{b.OutputFileID, b.ErrorFileID} {
		if id == "" {
			continue
		}
		if err := c.readFile(ctx, remoteID, id, fn); err != nil {
			return err
		}
	}
	return nil
}

// readFile streams one result file through fn.
func (c *BatchClient) readFile(ctx context.Context, remoteID, fileID string, fn func(extract.BatchLine) error) error {
	// GET files/{id}/content, its body streamed: up to 200 MB.
	h := c.p.ep.headers("", transferTimeout)
	h.Set("Accept", "application/binary")
	_, res, err := c.p.ep.do(ctx, sdkwire.Call{Method: http.MethodGet, URL: c.p.ep.url("files/" + pathParam(fileID) + "/content"),
		Header: h, Timeout: transferTimeout, Stream: true})
	if err != nil {
		return fmt.Errorf("download batch %s results %s: %w", remoteID, fileID, c.p.classify(ctx, err, nil))
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxResultLine)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Bytes()
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		line, err := c.resultLine(raw)
		if err != nil {
			return fmt.Errorf("batch %s results %s line %d: %w", remoteID, fileID, n, err)
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read batch %s results %s: %w", remoteID, fileID, extract.TransportError(ctx, err))
	}
	return nil
}

// resultLine interprets one result line as Extract would have interpreted
// the same answer. It fails only for a line without a readable custom id.
func (c *BatchClient) resultLine(raw []byte) (extract.BatchLine, error) {
	var rl resultLine
	if err := json.Unmarshal(raw, &rl); err != nil || rl.CustomID == "" {
		return extract.UnparsedBatchLine(raw)
	}
	line := extract.BatchLine{CustomID: rl.CustomID}
	switch {
	case rl.Response != nil:
		line.Resp, line.Err = c.response(rl.Response.StatusCode, rl.Response.RequestID, rl.Response.Body)
	case rl.Error != nil && (rl.Error.Code == codeExpired || rl.Error.Code == codeCancelled):
		line.Expired = true
	case rl.Error != nil:
		// A request the batch could not run for another reason: transient,
		// like a sync call that got no answer.
		line.Err = &extract.ProviderError{Class: extract.ClassTransient, Category: "batch_error",
			Msg: "the batch did not run the request: " + c.p.detail(&apiError{Code: rl.Error.Code, Message: rl.Error.Message})}
	default:
		line.Err = extract.UnreadableAnswer("the result line has neither a response nor an error")
	}
	return line, nil
}

// response interprets a line's response exactly as Extract interprets the
// same status and body.
func (c *BatchClient) response(status int, requestID string, body json.RawMessage) (*extract.Response, error) {
	resp := &extract.Response{Model: c.p.model, HTTPStatus: status, RequestID: capString(sanitize(requestID), 200)}
	if status != http.StatusOK {
		e := &apiError{StatusCode: status}
		_ = e.decode(sdkwire.Member(body, "error")) // as the SDK: an unreadable error leaves the fields empty
		return resp, c.p.apiError(e)
	}
	if len(bytes.TrimSpace(body)) == 0 || string(bytes.TrimSpace(body)) == "null" {
		return resp, &extract.ProviderError{Class: extract.ClassTransient, Category: categoryEmpty,
			Msg: "the server answered with an empty document"}
	}
	cc, err := lenientCompletion(body)
	if err != nil {
		return resp, extract.UnreadableAnswer("the response body is not a chat completion")
	}
	return c.p.answer(cc, resp, nil)
}
