package openai

import (
	"strings"
	"testing"
)

func TestFormatName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"invoice-summary-v1":    "invoice_summary",
		"invoice-summary-v12":   "invoice_summary",
		"credit-note-v2beta":    "credit_note_v2beta",
		"weird name!":           "weird_name_",
		"":                      "answer",
		strings.Repeat("a", 90): strings.Repeat("a", 64),
	} {
		if got := formatName(in); got != want {
			t.Errorf("formatName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripFence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":1}`:                     `{"a":1}`,
		"```json\n{\"a\":1}\n```":     `{"a":1}`,
		"  ```JSON\n{\"a\":1}\n```\n": `{"a":1}`,
		"```\n{\"a\":1}\n```":         `{"a":1}`,
		"```python\nprint(1)\n```":    "```python\nprint(1)\n```",
		"```json\n{\"a\":1}":          "```json\n{\"a\":1}",
		"Sure! ```json\n{}\n```":      "Sure! ```json\n{}\n```",
	} {
		if got := stripFence(in); got != want {
			t.Errorf("stripFence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseBaseURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                      "https://api.openai.com/v1/",
		"http://localhost:11434":                "http://localhost:11434/v1/",
		"http://localhost:11434/v1":             "http://localhost:11434/v1/",
		"https://openrouter.ai/api/v1":          "https://openrouter.ai/api/v1/",
		"https://x.openai.azure.com/openai/v1/": "https://x.openai.azure.com/openai/v1/",
	} {
		u, err := parseBaseURL(in)
		if err != nil || u.String() != want {
			t.Errorf("parseBaseURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}

func TestDetailScrubsAndCaps(t *testing.T) {
	t.Parallel()
	p := &Provider{apiKey: "local-secret"}
	got := p.scrub("key local-secret and sk-proj-abc***wxyz here")
	if strings.Contains(got, "local-secret") || strings.Contains(got, "wxyz") {
		t.Errorf("scrub = %q", got)
	}
	long := strings.Repeat("é", 300)
	if c := capString(long, 200); len(c) > 200 || !strings.HasSuffix(c, "...") {
		t.Errorf("capString: %d bytes %q", len(c), c[len(c)-5:])
	}
	if s := sanitize("a\nb\x00c\t d"); s != "a b c d" {
		t.Errorf("sanitize = %q", s)
	}
}
