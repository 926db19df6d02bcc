package batchfake

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

type outcomeKind int

const (
	kindSuccess outcomeKind = iota
	kindRefusal
	kindTruncated
	kindError
	kindExpired
	kindCancelled
	kindInvalidLine
	kindGarbage
	kindOmit
)

// Outcome is how the fake answers one request. Build it with Success,
// Refusal, Truncated, Error, Expired, Cancelled, InvalidLine, Garbage or
// Omit.
type Outcome struct {
	kind outcomeKind
	// content is the model's answer (success, truncated).
	content string
	// status, errType, errCode and errMsg make an error line.
	status                   int
	errType, errCode, errMsg string
	// InputTokens and OutputTokens are the usage reported (defaults 100, 20).
	InputTokens, OutputTokens int64
}

// Success answers content: OpenAI's message content with finish_reason
// stop; Anthropic's text block (end_turn), or, when the request forced a
// tool, that tool's input (content must then be a JSON object).
func Success(content string) Outcome { return Outcome{kind: kindSuccess, content: content} }

// Refusal answers a refusal (OpenAI refusal, Anthropic stop_reason refusal).
func Refusal() Outcome { return Outcome{kind: kindRefusal} }

// Truncated answers content cut off at the token limit (finish_reason
// length, stop_reason max_tokens).
func Truncated(content string) Outcome { return Outcome{kind: kindTruncated, content: content} }

// Error answers an error: OpenAI a response with status and
// {"error":{"message","type","code"}}; Anthropic an errored result whose
// error type is errType (or the one the status stands for when empty).
func Error(status int, errType, code, msg string) Outcome {
	return Outcome{kind: kindError, status: status, errType: errType, errCode: code, errMsg: msg}
}

// Expired answers that the request expired before it ran (OpenAI
// batch_expired, Anthropic expired).
func Expired() Outcome { return Outcome{kind: kindExpired} }

// Cancelled answers that the request was cancelled (batch_cancelled,
// canceled).
func Cancelled() Outcome { return Outcome{kind: kindCancelled} }

// InvalidLine writes a result line that is not JSON but still shows its
// custom_id.
func InvalidLine() Outcome { return Outcome{kind: kindInvalidLine} }

// Garbage writes a result line that is not JSON and names no custom_id.
func Garbage() Outcome { return Outcome{kind: kindGarbage} }

// Omit writes no result line at all for the request.
func Omit() Outcome { return Outcome{kind: kindOmit} }

func (o Outcome) tokens() (int64, int64) {
	in, out := o.InputTokens, o.OutputTokens
	if in == 0 {
		in = 100
	}
	if out == 0 {
		out = 20
	}
	return in, out
}

// invalidLine is the bytes of an InvalidLine result.
func invalidLine(customID string) []byte {
	return []byte(`{"custom_id":"` + customID + `","response":{"status_code":200,"body":{"choices":[`)
}

// garbageLine is the bytes of a Garbage result.
var garbageLine = []byte(`<html>502 Bad Gateway</html>`)

// The markers schema.Version.UserMessage puts around the document.
const (
	docStart = "<<<INVOICE\n"
	docEnd   = "\nINVOICE>>>"
)

// userText finds the document text in a request body: the first string
// anywhere in it that holds the markers.
func userText(body json.RawMessage) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	var found string
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			i := strings.Index(x, docStart)
			if i < 0 {
				return false
			}
			rest := x[i+len(docStart):]
			if j := strings.LastIndex(rest, docEnd); j >= 0 {
				found = rest[:j]
				return true
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			// Messages before system: the document is in a message.
			for _, k := range []string{"messages", "content", "text"} {
				if e, ok := x[k]; ok && walk(e) {
					return true
				}
			}
		}
		return false
	}
	walk(v)
	return found
}

// AnswerWith answers every request with what p extracts from its document
// under schemaName, as a model that agrees with p would; an error from p
// becomes a 400 error line. With the rules provider it answers as the
// rules extractor: AnswerWith(rules.New(), schema.V1). (batchfake takes the
// provider rather than importing extract/rules itself: only cmd may import
// a concrete adapter, see deps_test.go.)
func AnswerWith(p extract.Provider, schemaName string) AnswerFunc {
	v, err := schema.Lookup(schemaName)
	if err != nil {
		panic("batchfake: " + err.Error())
	}
	return func(_, text string) Outcome {
		resp, err := p.Extract(context.Background(), &extract.Request{Text: text, Schema: v})
		if err != nil {
			return Error(400, "invalid_request_error", "", "the provider cannot answer")
		}
		return Success(string(resp.Output))
	}
}
