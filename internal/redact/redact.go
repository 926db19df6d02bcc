// Package redact scrubs configured secrets (API keys, header values) out of
// text before invx stores, records, logs or prints it. A model can echo its
// API key back in an answer, and a webhook can echo a request header in an
// error body: whatever the source, a secret invx knows is replaced by Mask.
//
// redact imports nothing from invx, so every layer may use it.
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret. It holds no character JSON escapes, so
// scrubbing a JSON document leaves it well formed.
const Mask = "[REDACTED]"

// MinLen is the shortest value treated as a secret. Shorter values (a
// header "X-Env: a") would scrub ordinary text everywhere, and are no
// credential worth the name.
const MinLen = 8

// Scrubber replaces known secrets. The zero value and a nil *Scrubber
// scrub nothing. It is safe for concurrent use, and secrets may be added
// while it is in use (flags are parsed after the logger exists).
type Scrubber struct {
	mu sync.RWMutex
	// secrets, longest first, so a secret that contains another is
	// replaced whole.
	secrets []string
}

// Add registers secrets. Values shorter than MinLen bytes are ignored.
// Each value is also registered as JSON would escape it, so a secret with
// a quote or backslash is found inside a JSON string too.
func (s *Scrubber) Add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range secrets {
		if len(v) < MinLen {
			continue
		}
		forms := []string{v}
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
				forms = append(forms, esc)
			}
		}
		for _, f := range forms {
			if !slices.Contains(s.secrets, f) {
				s.secrets = append(s.secrets, f)
			}
		}
	}
	slices.SortStableFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
}

func (s *Scrubber) list() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.secrets
}

// String returns t with every secret replaced by Mask.
func (s *Scrubber) String(t string) string {
	for _, v := range s.list() {
		t = strings.ReplaceAll(t, v, Mask)
	}
	return t
}

// Bytes returns b with every secret replaced by Mask. It returns b itself
// when there is nothing to replace, else a new slice.
func (s *Scrubber) Bytes(b []byte) []byte {
	for _, v := range s.list() {
		if bytes.Contains(b, []byte(v)) {
			b = bytes.ReplaceAll(b, []byte(v), []byte(Mask))
		}
	}
	return b
}

// Writer returns a writer that scrubs each Write before passing it to w.
// A secret split across two writes is not found, so it suits writers that
// get whole lines or records at a time: log handlers, Fprintf of a message.
func (s *Scrubber) Writer(w io.Writer) io.Writer {
	return &writer{s: s, w: w}
}

type writer struct {
	s *Scrubber
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.s.Bytes(p)); err != nil {
		return 0, err
	}
	// The caller wrote p; how long its scrubbed form was is no concern of
	// its, and a shorter count would read as a short write.
	return len(p), nil
}
