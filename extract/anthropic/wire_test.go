package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/schema"
)

// TestRequestBodyMatchesSDK holds the templated request body to the SDK's
// encoding of params: the same JSON object in both modes, for every schema
// version, with and without a re-ask's feedback, whatever the text holds.
func TestRequestBodyMatchesSDK(t *testing.T) {
	t.Parallel()
	texts := []string{
		"INVOICE 7\nTotal: EUR 1.00\n",
		"quotes \" and \\ backslash, <html> & tags\u2028\u2029, tab\t, bell \x07, emoji 🧾, Zürich, " + userSlot,
		"",
	}
	feedback := []*schema.ValidationError{nil, {Path: "invoice.total_minor", Category: "type", Msg: `must be an integer, not "1.00" ` + feedbackSlot}}
	for _, mode := range []string{ModeJSONSchema, ModeTool} {
		p, err := New(Config{APIKey: "k", Model: "claude-x", Mode: mode, MaxTokens: 777})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range schema.Versions() {
			v, err := schema.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range texts {
				for _, fb := range feedback {
					req := &extract.Request{Text: text, Schema: v, Feedback: fb}
					got, gotTool, err := p.requestBody(req)
					if err != nil {
						t.Fatalf("%s %s: requestBody: %v", mode, name, err)
					}
					params, wantTool := sdkParams(p, req)
					want, err := params.MarshalJSON()
					if err != nil {
						t.Fatalf("%s %s: SDK MarshalJSON: %v", mode, name, err)
					}
					if gotTool != wantTool {
						t.Errorf("%s %s: tool %v, params say %v", mode, name, gotTool, wantTool)
					}
					if d := cmp.Diff(extracttest.DecodeJSON(t, want), extracttest.DecodeJSON(t, got)); d != "" {
						t.Errorf("%s %s, text %.20q, feedback %v: body differs from the SDK's (-sdk +ours):\n%s", mode, name, text, fb != nil, d)
					}
				}
			}
		}
	}
}

// BenchmarkRequestBody is the per-call encoding cost; BenchmarkParams what
// the SDK spent before.
func BenchmarkRequestBody(b *testing.B) {
	p, req := benchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := p.requestBody(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParams(b *testing.B) {
	p, req := benchRequest(b)
	b.ReportAllocs()
	for b.Loop() {
		params, _ := sdkParams(p, req)
		if _, err := params.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRequest(b *testing.B) (*Provider, *extract.Request) {
	b.Helper()
	p, err := New(Config{APIKey: "k", Model: "claude-x"})
	if err != nil {
		b.Fatal(err)
	}
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		b.Fatal(err)
	}
	return p, &extract.Request{Text: "INVOICE 1\nSupplier GmbH\nTotal EUR 10.00\n", Schema: v}
}
