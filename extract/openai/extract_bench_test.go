package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/extract/openai"
)

// BenchmarkExtractLoopback is one synchronous call, request to decoded
// answer, against a loopback server that answers at once: the adapter's
// CPU and allocations per document (the server's are in it too, the same
// for every version of the adapter).
func BenchmarkExtractLoopback(b *testing.B) {
	answer := []byte(`{"id":"c1","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"{}","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":42,"completion_tokens":9,"total_tokens":51}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(srv.Close)
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-x", Model: "gpt-x"})
	if err != nil {
		b.Fatal(err)
	}
	req := &extract.Request{Text: extracttest.Doc("x.txt", extracttest.Invoice).Text, Schema: extracttest.V1()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Extract(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
