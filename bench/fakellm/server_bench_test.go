package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/invx/invx/bench/internal/synth"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/schema"
)

// BenchmarkAnswer is the fake's own CPU per request with answers from a
// recording and no latency: what it takes from the cores invx runs on.
func BenchmarkAnswer(b *testing.B) {
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		b.Fatal(err)
	}
	text, err := extract.Normalize(synth.Doc(1, 3))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	rec, err := replay.NewRecorder(stub{out: []byte(`{"recorded":true}`)}, dir)
	if err != nil {
		b.Fatal(err)
	}
	key, _ := extract.JobKey("default", extract.Transformation, v.Name, extract.Digest(text))
	if _, err := rec.Extract(b.Context(), &extract.Request{JobKey: key, Attempt: 1, Text: text, Schema: v}); err != nil {
		b.Fatal(err)
	}
	a, err := newAnswerer(dir, "default")
	if err != nil {
		b.Fatal(err)
	}
	h := newServer(a, 0).handler()
	body, err := json.Marshal(map[string]any{
		"model":    "fake-model",
		"messages": []any{map[string]any{"role": "system", "content": v.Prompt()}, map[string]any{"role": "user", "content": v.UserMessage(text)}},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "invoice", "strict": true, "schema": v.StrictJSONSchema()}},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
