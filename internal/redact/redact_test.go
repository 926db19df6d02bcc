package redact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrubber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"no secrets", nil, "sk-live-123456789", "sk-live-123456789"},
		{"exact value", []string{"sk-live-123456789"}, `{"title":"key sk-live-123456789 here"}`, `{"title":"key [REDACTED] here"}`},
		{"every occurrence", []string{"sk-live-123456789"}, "sk-live-123456789 and sk-live-123456789", "[REDACTED] and [REDACTED]"},
		{"short values ignored", []string{"a", "1234567"}, "a 1234567", "a 1234567"},
		{"exactly MinLen", []string{"12345678"}, "x12345678x", "x[REDACTED]x"},
		{"empty ignored", []string{""}, "text", "text"},
		{"longest first", []string{"token-abcdefgh", "token-abcdefgh-and-more"}, "token-abcdefgh-and-more", "[REDACTED]"},
		{"JSON-escaped form", []string{`pa"ss\word`}, `{"x":"pa\"ss\\word"}`, `{"x":"[REDACTED]"}`},
		{"a prefix is not the secret", []string{"sk-live-123456789"}, "sk-live-1234", "sk-live-1234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s Scrubber
			s.Add(tt.secrets...)
			if diff := cmp.Diff(tt.want, s.String(tt.in)); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
			in := []byte(tt.in)
			if diff := cmp.Diff(tt.want, string(s.Bytes(in))); diff != "" {
				t.Errorf("Bytes (-want +got):\n%s", diff)
			}
			if string(in) != tt.in {
				t.Errorf("Bytes changed its argument to %q", in)
			}
			var buf bytes.Buffer
			n, err := s.Writer(&buf).Write([]byte(tt.in))
			if err != nil || n != len(tt.in) {
				t.Errorf("Write = %d, %v; want %d, nil", n, err, len(tt.in))
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("Writer (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNilScrubber(t *testing.T) {
	t.Parallel()
	var s *Scrubber
	if got := s.String("sk-live-123456789"); got != "sk-live-123456789" {
		t.Errorf("nil String = %q", got)
	}
	var buf strings.Builder
	if _, err := s.Writer(&buf).Write([]byte("abc")); err != nil || buf.String() != "abc" {
		t.Errorf("nil Writer wrote %q, %v", buf.String(), err)
	}
}
