package batchfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Anthropic's limits on one batch.
const (
	anthropicMaxRequests = 100_000
	anthropicMaxBytes    = 256 << 20
)

// anthropicTypes is the error type the Messages API answers each status
// with.
var anthropicTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
	404: "not_found_error", 409: "conflict_error", 413: "request_too_large", 429: "rate_limit_error",
	500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}

func anthropicError(w http.ResponseWriter, status int, msg string) {
	typ := anthropicTypes[status]
	if typ == "" {
		typ = "api_error"
	}
	w.Header().Set("request-id", "req_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg},
		"request_id": w.Header().Get("request-id")})
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("x-api-key")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		if key != "" {
			anthropicError(w, http.StatusUnauthorized, "send either x-api-key or Authorization, not both")
			return
		}
		key = bearer
	}
	if key == "" || (s.APIKey != "" && key != s.APIKey) {
		anthropicError(w, http.StatusUnauthorized, "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		anthropicError(w, http.StatusBadRequest, "anthropic-version: header is required")
		return
	}
	w.Header().Set("request-id", "req_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/messages/batches")
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	switch {
	case !ok:
		anthropicError(w, http.StatusNotFound, "Not found: "+r.URL.Path)
	case r.Method == http.MethodPost && rest == "":
		s.creations.Add(1)
		s.anthropicCreate(w, r)
	case r.Method == http.MethodGet && rest == "":
		s.lists.Add(1)
		s.anthropicList(w, r)
	case r.Method == http.MethodGet && len(parts) == 1:
		s.retrieves.Add(1)
		s.anthropicRetrieve(w, parts[0])
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "cancel":
		s.cancels.Add(1)
		s.anthropicCancel(w, parts[0])
	case r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "results":
		s.downloads.Add(1)
		s.anthropicResultsFile(w, parts[0])
	default:
		anthropicError(w, http.StatusNotFound, "Not found: "+r.Method+" "+r.URL.Path)
	}
}

// anthropicCreate checks the body as the API does (400 for a bad custom
// id, a repeated one, params without model, max_tokens or messages; 413
// over 256 MB) and creates the batch.
func (s *Server) anthropicCreate(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, anthropicMaxBytes+1))
	if err != nil {
		anthropicError(w, http.StatusBadRequest, "could not read the body")
		return
	}
	if len(data) > anthropicMaxBytes {
		anthropicError(w, http.StatusRequestEntityTooLarge, "Request exceeds the maximum allowed number of bytes.")
		return
	}
	var body struct {
		Requests []struct {
			CustomID *string                    `json:"custom_id"`
			Params   map[string]json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		anthropicError(w, http.StatusBadRequest, "The request body is not valid JSON.")
		return
	}
	if len(body.Requests) == 0 || len(body.Requests) > anthropicMaxRequests {
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("requests: must hold 1 to %d items", anthropicMaxRequests))
		return
	}
	seen := map[string]bool{}
	reqs := make([]Request, 0, len(body.Requests))
	model := ""
	for i, rq := range body.Requests {
		bad := func(msg string) { anthropicError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d: %s", i, msg)) }
		if rq.CustomID == nil || !customIDPattern.MatchString(*rq.CustomID) {
			bad("custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'")
			return
		}
		if seen[*rq.CustomID] {
			bad("custom_id: duplicate custom_id " + *rq.CustomID)
			return
		}
		seen[*rq.CustomID] = true
		var m string
		var maxTokens int64
		var msgs []json.RawMessage
		if json.Unmarshal(rq.Params["model"], &m) != nil || m == "" {
			bad("params.model: Field required")
			return
		}
		if json.Unmarshal(rq.Params["max_tokens"], &maxTokens) != nil || maxTokens < 1 {
			bad("params.max_tokens: Field required")
			return
		}
		if json.Unmarshal(rq.Params["messages"], &msgs) != nil || len(msgs) == 0 {
			bad("params.messages: Field required")
			return
		}
		if _, ok := rq.Params["stream"]; ok {
			bad("params.stream: streaming is not supported in batches")
			return
		}
		if model == "" {
			model = m
		}
		raw, _ := json.Marshal(rq.Params)
		reqs = append(reqs, Request{CustomID: *rq.CustomID, Body: raw, UserText: userText(raw)})
	}
	s.mu.Lock()
	b := &batch{id: s.nextID("msgbatch_"), model: model, created: s.Now()}
	for i := range reqs {
		reqs[i].BatchID = b.id
	}
	b.reqs = reqs
	s.batches = append(s.batches, b)
	s.reqs = append(s.reqs, reqs...)
	obj := s.anthropicObject(b)
	s.mu.Unlock()
	if s.dropAfterCreate(b.id) {
		drop(w)
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

// anthropicObject is b as the API shows it. Call with s.mu held.
func (s *Server) anthropicObject(b *batch) map[string]any {
	counts := map[string]int{"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	status := "in_progress"
	if b.cancelled {
		status = "canceling"
	}
	var endedAt, resultsURL, cancelAt any
	if b.ended {
		status = "ended"
		endedAt = b.endedAt.UTC().Format(time.RFC3339Nano)
		resultsURL = s.Srv.URL + "/v1/messages/batches/" + b.id + "/results"
		for _, o := range b.outcomes {
			switch o.kind {
			case kindError:
				counts["errored"]++
			case kindExpired:
				counts["expired"]++
			case kindCancelled:
				counts["canceled"]++
			default:
				counts["succeeded"]++
			}
		}
	} else {
		counts["processing"] = len(b.reqs)
	}
	if b.cancelled {
		cancelAt = b.created.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{
		"id": b.id, "type": "message_batch", "processing_status": status, "request_counts": counts,
		"ended_at": endedAt, "created_at": b.created.UTC().Format(time.RFC3339Nano),
		"expires_at": b.created.Add(24 * time.Hour).UTC().Format(time.RFC3339Nano), "archived_at": nil,
		"cancel_initiated_at": cancelAt, "results_url": resultsURL,
	}
}

func (s *Server) anthropicRetrieve(w http.ResponseWriter, id string) {
	s.mu.Lock()
	b := s.find(id)
	if b == nil {
		s.mu.Unlock()
		anthropicError(w, http.StatusNotFound, "batch "+id+" not found")
		return
	}
	answer := s.poll(b)
	s.mu.Unlock()
	if answer {
		s.finish(b)
	}
	s.mu.Lock()
	obj := s.anthropicObject(b)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) anthropicCancel(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.find(id)
	if b == nil {
		anthropicError(w, http.StatusNotFound, "batch "+id+" not found")
		return
	}
	if !b.ended {
		b.cancelled = true
	}
	writeJSON(w, http.StatusOK, s.anthropicObject(b))
}

// anthropicList lists batches newest first: limit (default 20, 1 to
// 1000), after_id or before_id.
func (s *Server) anthropicList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := listLimit(q.Get("limit"), 20, 1000)
	if err != nil {
		anthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page, more := s.page(q.Get("after_id"), q.Get("before_id"), limit)
	data := make([]any, len(page))
	for i, b := range page {
		data[i] = s.anthropicObject(b)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": more, "first_id": firstID(page), "last_id": lastID(page)})
}

func (s *Server) anthropicResultsFile(w http.ResponseWriter, id string) {
	s.mu.Lock()
	b := s.find(id)
	var data []byte
	ended := b != nil && b.ended
	if ended {
		data = b.results
	}
	s.mu.Unlock()
	switch {
	case b == nil:
		anthropicError(w, http.StatusNotFound, "batch "+id+" not found")
	case !ended:
		anthropicError(w, http.StatusBadRequest, "Batch "+id+" has not ended: results are not available yet.")
	default:
		w.Header().Set("Content-Type", "application/binary")
		_, _ = w.Write(data)
	}
}

// anthropicResults is b's results JSONL, lines shuffled. Call with s.mu
// held.
func (s *Server) anthropicResults(b *batch) []byte {
	var buf bytes.Buffer
	order := rand.New(rand.NewPCG(uint64(len(b.reqs)), 7)).Perm(len(b.reqs))
	for n, i := range order {
		r, o := b.reqs[i], b.outcomes[i]
		var result map[string]any
		switch o.kind {
		case kindOmit:
			continue
		case kindInvalidLine:
			buf.WriteString(`{"custom_id":"` + r.CustomID + `","result":{"type":"succeeded","message":{"id":`)
			buf.WriteByte('\n')
			continue
		case kindGarbage:
			buf.Write(garbageLine)
			buf.WriteByte('\n')
			continue
		case kindSuccess, kindRefusal, kindTruncated:
			result = map[string]any{"type": "succeeded", "message": s.message(b, r, n, o)}
		case kindError:
			typ := o.errType
			if typ == "" {
				typ = anthropicTypes[o.status]
			}
			inner := map[string]any{"type": typ, "message": o.errMsg}
			if o.errCode != "" {
				inner["details"] = map[string]any{"error_code": o.errCode}
			}
			result = map[string]any{"type": "errored", "error": map[string]any{"type": "error", "error": inner, "request_id": nil}}
		case kindExpired:
			result = map[string]any{"type": "expired"}
		case kindCancelled:
			result = map[string]any{"type": "canceled"}
		}
		enc, _ := json.Marshal(map[string]any{"custom_id": r.CustomID, "result": result})
		buf.Write(enc)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// message is a Messages response for a success, refusal or truncated
// outcome: a tool_use block when the request forced a tool and the
// content is a JSON object, a text block otherwise.
func (s *Server) message(b *batch, r Request, n int, o Outcome) map[string]any {
	in, out := o.tokens()
	var params struct {
		ToolChoice struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
	}
	_ = json.Unmarshal(r.Body, &params)
	content := []any{map[string]any{"type": "text", "text": o.content}}
	stop := "end_turn"
	var input map[string]any
	if params.ToolChoice.Type == "tool" && json.Unmarshal([]byte(o.content), &input) == nil {
		content = []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", b.id, n),
			"name": params.ToolChoice.Name, "input": input}}
		stop = "tool_use"
	}
	var details any
	switch o.kind {
	case kindRefusal:
		content, stop = []any{}, "refusal"
		details = map[string]any{"type": "refusal", "category": nil, "explanation": nil}
	case kindTruncated:
		content = []any{map[string]any{"type": "text", "text": o.content}}
		stop = "max_tokens"
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_%s_%d", b.id, n), "type": "message", "role": "assistant", "model": b.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "stop_details": details,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out},
	}
}
