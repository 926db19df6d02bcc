package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/invx/invx/schema"
)

// maxBody bounds a request; invx's own --max-bytes default is 1 MiB of text,
// and the prompt and schema add a few KiB.
const maxBody = 8 << 20

// server answers Chat Completions requests in the wire format of
// /work/shared/PROVIDERS.md section 2, as openai-go reads it.
type server struct {
	answers *answerer
	latency time.Duration
	seq     atomic.Int64
	// answered counts answers by where they came from, for the summary
	// line at exit: a fake that computed them on the spot spent CPU the
	// benchmark's invx did not get.
	fromRecording, fromRules atomic.Int64
	occ                      *occupancy
}

func newServer(a *answerer, latency time.Duration) *server {
	return &server{answers: a, latency: latency, occ: &occupancy{}}
}

// handler routes the one endpoint the fake serves.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.completions)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("unknown route %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// chatRequest is the part of a request the fake reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string `json:"name"`
			Schema struct {
				Properties struct {
					SchemaVersion struct {
						Enum []string `json:"enum"`
					} `json:"schema_version"`
				} `json:"properties"`
			} `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// completions answers one request. The latency runs from the moment the
// request was read, so the answer's own cost is hidden in it, as a model's
// compute is in a real API's latency.
func (s *server) completions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	arrived := time.Now()
	s.occ.enter()
	defer s.occ.leave()
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "could not read the request body")
		return
	}
	if len(body) > maxBody {
		apiError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "", "request too large")
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "the body is not valid JSON")
		return
	}
	if req.Model == "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "model", "you must provide a model parameter")
		return
	}
	v, err := requestedVersion(&req)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "response_format", err.Error())
		return
	}
	user, ok := userText(&req)
	if !ok {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "messages", "no user message with text content")
		return
	}
	out, from, err := s.answers.answer(r.Context(), v, documentText(v, user))
	if err != nil {
		apiError(w, http.StatusInternalServerError, "server_error", "", "the fake could not answer: "+err.Error())
		return
	}
	if from == fromRecording {
		s.fromRecording.Add(1)
	} else {
		s.fromRules.Add(1)
	}
	n := s.seq.Add(1)
	if wait := s.latency - time.Since(arrived); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up; nobody reads the answer
		}
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_fake_%d", n))
	writeJSON(w, http.StatusOK, completion(n, req.Model, string(out), len(body), len(out)))
}

// requestedVersion is the schema version the strict response_format asks
// for: the one value its schema_version property allows.
func requestedVersion(req *chatRequest) (*schema.Version, error) {
	if req.ResponseFormat.Type != "json_schema" {
		return nil, fmt.Errorf("response_format type %q: the fake answers json_schema requests only", req.ResponseFormat.Type)
	}
	enum := req.ResponseFormat.JSONSchema.Schema.Properties.SchemaVersion.Enum
	if len(enum) != 1 {
		return nil, fmt.Errorf("the schema does not fix one schema_version (enum %q)", enum)
	}
	v, err := schema.Lookup(enum[0])
	if err != nil {
		return nil, fmt.Errorf("schema_version %q: %w", enum[0], err)
	}
	return v, nil
}

// userText is the first user message's text: a string, or the text parts of
// an array of content parts.
func userText(req *chatRequest) (string, bool) {
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if err := json.Unmarshal(m.Content, &s); err == nil {
			return s, true
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return "", false
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), true
	}
	return "", false
}

// documentText takes the document out of the framing v.UserMessage puts
// around it. A message without that framing is read whole, as a model would
// read it; what the rules find nothing in becomes a null-filled answer.
func documentText(v *schema.Version, msg string) string {
	framed := v.UserMessage("\x00")
	i := strings.IndexByte(framed, 0)
	start, end := framed[:i], framed[i+1:]
	if strings.HasPrefix(msg, start) && strings.HasSuffix(msg, end) && len(msg) >= len(start)+len(end) {
		return msg[len(start) : len(msg)-len(end)]
	}
	return msg
}

// completion is a chat.completion object with the answer as its content.
// Token counts are rough (4 bytes a token): invx records them, nothing
// checks them.
func completion(n int64, model, content string, inBytes, outBytes int) map[string]any {
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", n),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil, "annotations": []any{}},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]any{
			"prompt_tokens":     inBytes/4 + 1,
			"completion_tokens": outBytes/4 + 1,
			"total_tokens":      inBytes/4 + outBytes/4 + 2,
		},
	}
}

// apiError writes an OpenAI error object, shaped as the real API's.
func apiError(w http.ResponseWriter, status int, typ, param, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "encode answer", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
