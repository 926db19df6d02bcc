package batchfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// OpenAI's limits on one batch input file.
const (
	openAIMaxRequests = 50_000
	openAIMaxBytes    = 200 << 20
)

// customIDPattern is the custom_id both APIs accept here: the alphabet
// and the 64-character cap of Anthropic, which invx's ids fit.
var customIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// openAIEndpoints are the endpoints a batch may name.
var openAIEndpoints = map[string]bool{
	"/v1/responses": true, "/v1/chat/completions": true, "/v1/embeddings": true, "/v1/completions": true,
	"/v1/moderations": true, "/v1/images/generations": true, "/v1/images/edits": true, "/v1/videos": true,
}

func openAIError(w http.ResponseWriter, status int, typ, code, msg string) {
	var c any
	if code != "" {
		c = code
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-request-id", "req_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
		openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && path == "/files":
		s.uploads.Add(1)
		s.openAIUpload(w, r)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "files" && parts[2] == "content":
		s.downloads.Add(1)
		s.openAIContent(w, parts[1])
	case r.Method == http.MethodPost && path == "/batches":
		s.creations.Add(1)
		s.openAICreate(w, r)
	case r.Method == http.MethodGet && path == "/batches":
		s.lists.Add(1)
		s.openAIList(w, r)
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "batches":
		s.retrieves.Add(1)
		s.openAIRetrieve(w, parts[1])
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "batches" && parts[2] == "cancel":
		s.cancels.Add(1)
		s.openAICancel(w, parts[1])
	default:
		openAIError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Invalid URL ("+r.Method+" "+r.URL.Path+")")
	}
}

// openAIUpload takes a multipart upload: a file part and a purpose field.
// A batch file must be .jsonl, at most 200 MB, one JSON object a line.
func (s *Server) openAIUpload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "The request is not multipart/form-data.")
		return
	}
	purpose := r.FormValue("purpose")
	f, hdr, err := r.FormFile("file")
	if err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "'file' is a required property")
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, openAIMaxBytes+1))
	if err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "could not read the file")
		return
	}
	switch purpose {
	case "batch":
	case "assistants", "fine-tune", "vision", "user_data", "evals":
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "this fake only stores batch files")
		return
	default:
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "'purpose' must be one of the documented values")
		return
	}
	if !strings.HasSuffix(hdr.Filename, ".jsonl") {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "Invalid file format for Batch API. Must be .jsonl")
		return
	}
	if len(data) > openAIMaxBytes {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "File is too large: the maximum is 200 MB.")
		return
	}
	for i, ln := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(ln, &obj) != nil {
			openAIError(w, http.StatusBadRequest, "invalid_request_error", "",
				fmt.Sprintf("Invalid file format: line %d is not a JSON object.", i+1))
			return
		}
	}
	s.mu.Lock()
	fl := &file{id: s.nextID("file-"), purpose: purpose, name: hdr.Filename, data: data, created: s.Now().Unix()}
	s.files[fl.id] = fl
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, fileObject(fl))
}

func fileObject(f *file) map[string]any {
	return map[string]any{"id": f.id, "object": "file", "bytes": len(f.data), "created_at": f.created,
		"filename": f.name, "purpose": f.purpose, "status": "processed"}
}

func (s *Server) openAIContent(w http.ResponseWriter, id string) {
	s.mu.Lock()
	f := s.files[id]
	s.mu.Unlock()
	if f == nil {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "", "No such File object: "+id)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(f.data)
}

// openAICreate checks the creation request (400 for a bad endpoint,
// window, metadata or file) and the file's lines; bad lines make a batch
// that fails validation, as the real API does.
func (s *Server) openAICreate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		InputFileID      string            `json:"input_file_id"`
		Endpoint         string            `json:"endpoint"`
		CompletionWindow string            `json:"completion_window"`
		Metadata         map[string]string `json:"metadata"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	switch {
	case !openAIEndpoints[body.Endpoint]:
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "Invalid endpoint: "+body.Endpoint)
		return
	case body.CompletionWindow != "24h":
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "completion_window must be 24h")
		return
	case len(body.Metadata) > 16:
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "metadata has more than 16 keys")
		return
	}
	for k, v := range body.Metadata {
		if len(k) > 64 || len(v) > 512 {
			openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "metadata key or value too long")
			return
		}
	}
	s.mu.Lock()
	f := s.files[body.InputFileID]
	if f == nil || f.purpose != "batch" {
		s.mu.Unlock()
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "No batch input file with id "+body.InputFileID)
		return
	}
	b := &batch{id: s.nextID("batch_"), inputFile: f.id, endpoint: body.Endpoint, window: body.CompletionWindow,
		metadata: body.Metadata, created: s.Now()}
	b.reqs, b.model, b.failed = parseOpenAILines(b.id, b.endpoint, f.data)
	s.batches = append(s.batches, b)
	if b.failed == nil {
		s.reqs = append(s.reqs, b.reqs...)
	}
	obj := s.openAIObject(b)
	s.mu.Unlock()
	if s.dropAfterCreate(b.id) {
		drop(w)
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

// parseOpenAILines reads an input file's requests, or the validation
// errors that fail the batch.
func parseOpenAILines(batchID, endpoint string, data []byte) ([]Request, string, []lineError) {
	var reqs []Request
	var errs []lineError
	seen := map[string]bool{}
	model := ""
	for i, ln := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		n := i + 1
		var l struct {
			CustomID *string        `json:"custom_id"`
			Method   string         `json:"method"`
			URL      string         `json:"url"`
			Body     map[string]any `json:"body"`
		}
		if json.Unmarshal(ln, &l) != nil {
			errs = append(errs, lineError{Code: "invalid_json_line", Message: "This line is not parseable as valid JSON.", Line: n})
			continue
		}
		bad := func(code, msg string, param any) {
			errs = append(errs, lineError{Code: code, Message: msg, Param: param, Line: n})
		}
		switch {
		case l.CustomID == nil || !customIDPattern.MatchString(*l.CustomID):
			bad("invalid_custom_id", "custom_id must be 1 to 64 characters of [A-Za-z0-9_-].", "custom_id")
			continue
		case seen[*l.CustomID]:
			bad("duplicate_custom_id", "The custom_id for this request is a duplicate of another request.", "custom_id")
			continue
		case l.Method != "POST":
			bad("invalid_method", "method must be POST.", "method")
		case l.URL != endpoint:
			bad("mismatched_endpoint", "The url for this request does not match the batch endpoint.", "url")
		case l.Body == nil:
			bad("missing_required_parameter", "body is required.", "body")
		}
		seen[*l.CustomID] = true
		m, _ := l.Body["model"].(string)
		msgs, _ := l.Body["messages"].([]any)
		switch {
		case l.Body == nil:
		case m == "":
			bad("missing_required_parameter", "body.model is required.", "body.model")
		case model != "" && m != model:
			bad("model_mismatch", "All requests of a batch must use the same model.", "body.model")
		case len(msgs) == 0:
			bad("missing_required_parameter", "body.messages must be a non-empty array.", "body.messages")
		}
		if model == "" {
			model = m
		}
		raw, _ := json.Marshal(l.Body)
		reqs = append(reqs, Request{BatchID: batchID, CustomID: *l.CustomID, Body: raw, UserText: userText(raw)})
	}
	if len(reqs) > openAIMaxRequests {
		errs = append(errs, lineError{Code: "too_many_requests", Message: "The batch has more than 50,000 requests."})
	}
	if len(reqs) == 0 && errs == nil {
		errs = append(errs, lineError{Code: "empty_file", Message: "The input file holds no requests."})
	}
	return reqs, model, errs
}

// openAIStatus is b's status word now.
func (s *Server) openAIStatus(b *batch) string {
	switch {
	case b.failed != nil && b.retrieves == 0:
		return "validating"
	case b.failed != nil:
		return "failed"
	case b.ended && b.cancelled:
		return "cancelled"
	case b.ended && b.expired:
		return "expired"
	case b.ended:
		return "completed"
	case b.cancelled:
		return "cancelling"
	case b.retrieves == 0:
		return "validating"
	default:
		return "in_progress"
	}
}

// openAIObject is b as the API shows it. Call with s.mu held.
func (s *Server) openAIObject(b *batch) map[string]any {
	status := s.openAIStatus(b)
	created := b.created.Unix()
	total, completed, failed := 0, 0, 0
	switch {
	case status == "validating" || status == "failed":
	case b.ended:
		total = len(b.reqs)
		for _, o := range b.outcomes {
			switch o.kind {
			case kindSuccess, kindRefusal, kindTruncated, kindInvalidLine, kindGarbage:
				completed++
			case kindError, kindExpired, kindCancelled:
				failed++
			}
		}
	default:
		total = len(b.reqs)
		completed = total * min(b.retrieves, s.polls) / (s.polls + 1)
	}
	var errs any
	if b.failed != nil && status == "failed" {
		errs = map[string]any{"object": "list", "data": b.failed}
	}
	var meta any
	if b.metadata != nil {
		meta = b.metadata
	}
	obj := map[string]any{
		"id": b.id, "object": "batch", "endpoint": b.endpoint, "model": b.model, "errors": errs,
		"input_file_id": b.inputFile, "completion_window": b.window, "status": status,
		"output_file_id": nullIfEmpty(b.outputFile), "error_file_id": nullIfEmpty(b.errorFile),
		"created_at": created, "in_progress_at": nil, "expires_at": created + 24*3600,
		"finalizing_at": nil, "completed_at": nil, "failed_at": nil, "expired_at": nil,
		"cancelling_at": nil, "cancelled_at": nil,
		"request_counts": map[string]int{"total": total, "completed": completed, "failed": failed},
		"metadata":       meta,
	}
	if b.ended {
		at := b.endedAt.Unix()
		switch {
		case b.cancelled:
			obj["cancelled_at"] = at
		case b.expired:
			obj["expired_at"] = at
		default:
			obj["completed_at"] = at
		}
	}
	if status == "failed" {
		obj["failed_at"] = created
	}
	return obj
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) openAIRetrieve(w http.ResponseWriter, id string) {
	s.mu.Lock()
	b := s.find(id)
	if b == nil {
		s.mu.Unlock()
		openAIError(w, http.StatusNotFound, "invalid_request_error", "", "No batch found with id '"+id+"'.")
		return
	}
	var answer bool
	if b.failed != nil {
		b.retrieves++ // validation failed: nothing to answer
	} else {
		answer = s.poll(b)
	}
	s.mu.Unlock()
	if answer {
		s.finish(b)
	}
	s.mu.Lock()
	obj := s.openAIObject(b)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

func (s *Server) openAICancel(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.find(id)
	if b == nil {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "", "No batch found with id '"+id+"'.")
		return
	}
	if b.ended || b.failed != nil {
		openAIError(w, http.StatusConflict, "invalid_request_error", "",
			"Cannot cancel a batch with status '"+s.openAIStatus(b)+"'.")
		return
	}
	b.cancelled = true
	writeJSON(w, http.StatusOK, s.openAIObject(b))
}

// openAIList lists batches newest first, limit (default 20, 1 to 100)
// after the batch named by after.
func (s *Server) openAIList(w http.ResponseWriter, r *http.Request) {
	limit, err := listLimit(r.URL.Query().Get("limit"), 20, 100)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page, more := s.page(r.URL.Query().Get("after"), "", limit)
	data := make([]any, len(page))
	for i, b := range page {
		data[i] = s.openAIObject(b)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "first_id": firstID(page),
		"last_id": lastID(page), "has_more": more})
}

// page returns up to limit batches, newest first, after the batch after
// (older than it) or, with before, the ones just newer than before.
// Call with s.mu held.
func (s *Server) page(after, before string, limit int) ([]*batch, bool) {
	all := make([]*batch, 0, len(s.batches))
	for i := len(s.batches) - 1; i >= 0; i-- {
		all = append(all, s.batches[i])
	}
	idx := func(id string) int {
		for i, b := range all {
			if b.id == id {
				return i
			}
		}
		return -1
	}
	if before != "" {
		end := idx(before)
		if end < 0 {
			return nil, false
		}
		start := max(end-limit, 0)
		return all[start:end], start > 0
	}
	start := 0
	if after != "" {
		i := idx(after)
		if i < 0 {
			return nil, false
		}
		start = i + 1
	}
	end := min(start+limit, len(all))
	return all[start:end], end < len(all)
}

func firstID(p []*batch) any {
	if len(p) == 0 {
		return nil
	}
	return p[0].id
}

func lastID(p []*batch) any {
	if len(p) == 0 {
		return nil
	}
	return p[len(p)-1].id
}

func listLimit(raw string, def, maxLimit int) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > maxLimit {
		return 0, fmt.Errorf("limit must be an integer from 1 to %d", maxLimit)
	}
	return n, nil
}

// openAIFiles writes b's output and error files, lines shuffled as the
// real API does not keep input order. Call with s.mu held.
func (s *Server) openAIFiles(b *batch) {
	var out, errf bytes.Buffer
	order := rand.New(rand.NewPCG(uint64(len(b.reqs)), 42)).Perm(len(b.reqs))
	for n, i := range order {
		r, o := b.reqs[i], b.outcomes[i]
		lineID := fmt.Sprintf("batch_req_%s_%d", b.id, n)
		reqID := fmt.Sprintf("req_%s_%d", b.id, n)
		line := map[string]any{"id": lineID, "custom_id": r.CustomID, "response": nil, "error": nil}
		dst := &out
		switch o.kind {
		case kindOmit:
			continue
		case kindInvalidLine:
			out.Write(invalidLine(r.CustomID))
			out.WriteByte('\n')
			continue
		case kindGarbage:
			out.Write(garbageLine)
			out.WriteByte('\n')
			continue
		case kindSuccess, kindRefusal, kindTruncated:
			line["response"] = map[string]any{"status_code": 200, "request_id": reqID, "body": s.completion(b, n, o)}
		case kindError:
			var code any
			if o.errCode != "" {
				code = o.errCode
			}
			typ := o.errType
			if typ == "" {
				typ = "invalid_request_error"
			}
			line["response"] = map[string]any{"status_code": o.status, "request_id": reqID,
				"body": map[string]any{"error": map[string]any{"message": o.errMsg, "type": typ, "param": nil, "code": code}}}
			dst = &errf
		case kindExpired:
			line["error"] = map[string]any{"code": "batch_expired",
				"message": "This request could not be executed before the completion window expired."}
			dst = &errf
		case kindCancelled:
			line["error"] = map[string]any{"code": "batch_cancelled",
				"message": "This request was not executed because the batch was cancelled."}
			dst = &errf
		}
		enc, _ := json.Marshal(line)
		dst.Write(enc)
		dst.WriteByte('\n')
	}
	now := s.Now().Unix()
	if out.Len() > 0 {
		f := &file{id: s.nextID("file-"), purpose: "batch_output", name: "batch_" + b.id + "_output.jsonl", data: out.Bytes(), created: now}
		s.files[f.id], b.outputFile = f, f.id
	}
	if errf.Len() > 0 {
		f := &file{id: s.nextID("file-"), purpose: "batch_output", name: "batch_" + b.id + "_error.jsonl", data: errf.Bytes(), created: now}
		s.files[f.id], b.errorFile = f, f.id
	}
}

// completion is a chat.completion body for a success, refusal or
// truncated outcome.
func (s *Server) completion(b *batch, n int, o Outcome) map[string]any {
	in, out := o.tokens()
	msg := map[string]any{"role": "assistant", "content": o.content, "refusal": nil}
	finish := "stop"
	switch o.kind {
	case kindRefusal:
		msg["content"], msg["refusal"] = nil, "I'm sorry, I can't help with that."
	case kindTruncated:
		finish = "length"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%s-%d", b.id, n), "object": "chat.completion", "created": s.Now().Unix(),
		"model":   b.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}
