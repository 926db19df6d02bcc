package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// The SDK encodes a request by reflection, walking the system prompt and the
// whole response schema (a map, its keys sorted at every level) on every
// call: about a millisecond of CPU per document, more than all the rest of
// invx's work on it. Everything but the document's text and a re-ask's
// feedback is the same for every request of a schema version, so the SDK
// encodes each version's request once, with placeholders where those texts
// go, and each call fills them in. The bytes around the texts are the SDK's
// own, so the request is the one p.params would have sent
// (TestRequestBodyMatchesSDK).

// Placeholders for the texts: plain ASCII, so that every encoder writes
// them as they are, and nothing a prompt or schema could contain.
const (
	userSlot     = "invx-slot-user-3b0c9e51d2"
	feedbackSlot = "invx-slot-feedback-8f41a7c6e0"
)

type templateKey struct {
	v        *schema.Version
	feedback bool
}

// template is an encoded request cut at its placeholders: parts[0], the user
// message, parts[1], then (with feedback) the feedback and parts[2].
type template struct {
	once  sync.Once
	parts [][]byte
	tool  bool
	err   error
}

func (p *Provider) template(v *schema.Version, feedback bool) (*template, error) {
	t, _ := p.templates.LoadOrStore(templateKey{v, feedback}, &template{})
	tp := t.(*template)
	tp.once.Do(func() {
		fb := ""
		if feedback {
			fb = feedbackSlot
		}
		params, tool := p.paramsFor(v, userSlot, fb)
		enc, err := params.MarshalJSON()
		if err != nil {
			tp.err = fmt.Errorf("encode request of %s: %w", v.Name, err)
			return
		}
		tp.tool = tool
		slots := []string{userSlot}
		if feedback {
			slots = append(slots, feedbackSlot)
		}
		rest := enc
		for _, slot := range slots {
			quoted := []byte(`"` + slot + `"`)
			i := bytes.Index(rest, quoted)
			if i < 0 || bytes.Contains(rest[i+len(quoted):], quoted) {
				tp.err = fmt.Errorf("encode request of %s: placeholder not found once", v.Name)
				return
			}
			tp.parts = append(tp.parts, rest[:i])
			rest = rest[i+len(quoted):]
		}
		tp.parts = append(tp.parts, rest)
	})
	return tp, tp.err
}

// requestBody is the encoded request for req and whether it forces the emit
// tool (params' second result).
func (p *Provider) requestBody(req *extract.Request) ([]byte, bool, error) {
	fb := feedbackText(req)
	t, err := p.template(req.Schema, fb != "")
	if err != nil {
		return nil, false, err
	}
	texts := []string{req.Schema.UserMessage(req.Text)}
	if fb != "" {
		texts = append(texts, fb)
	}
	size := len(texts[0]) + len(fb) + 64
	for _, part := range t.parts {
		size += len(part)
	}
	body := make([]byte, 0, size)
	for i, text := range texts {
		q, err := json.Marshal(text)
		if err != nil {
			return nil, false, fmt.Errorf("encode message: %w", err)
		}
		body = append(append(body, t.parts[i]...), q...)
	}
	return append(body, t.parts[len(texts)]...), t.tool, nil
}
