package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/invx/invx/extract/internal/sdkwire"
)

// apiError is an answer with an HTTP status of 400 or more: its status,
// the fields of its body's "error" object and the response (for its
// headers). It holds no request, so neither the key nor the document can
// leak through it; classify never wraps it all the same.
type apiError struct {
	StatusCode                 int
	Code, Message, Param, Type string
	Response                   *http.Response
}

// Error is the SDK's summary, without the body.
func (e *apiError) Error() string {
	if text := http.StatusText(e.StatusCode); text != "" {
		return fmt.Sprintf("OpenAI API error: %d %s", e.StatusCode, text)
	}
	return fmt.Sprintf("OpenAI API error: %d", e.StatusCode)
}

// newAPIError reads an error answer's body as the SDK did: the "error"
// member's fields, none of them required. A body that is no JSON object,
// or has no error member, gives an error without details; an error
// member that is a string, number or array is no API error at all (the
// SDK returned its decoding error instead, which classify treats as a
// transport failure).
func newAPIError(res *http.Response, body []byte) (*apiError, error) {
	e := &apiError{StatusCode: res.StatusCode, Response: res}
	if err := e.decode(sdkwire.Member(body, "error")); err != nil {
		return nil, err
	}
	return e, nil
}

// decode fills e's fields from an error object, leniently (fieldString).
// An absent or null object leaves them empty.
func (e *apiError) decode(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return fmt.Errorf("json: cannot unmarshal %s into Go value of type apierror.Error", jsonKind(raw))
	}
	e.Code, e.Message = sdkwire.FieldString(m["code"]), sdkwire.FieldString(m["message"])
	e.Param, e.Type = sdkwire.FieldString(m["param"]), sdkwire.FieldString(m["type"])
	return nil
}

// fieldInt reads an integer field as the SDK's decoder did: a number,
// truncated, or a string holding one; anything else is 0.
func fieldInt(raw json.RawMessage) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0
		}
		raw = []byte(s)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return int64(f)
	}
	return 0
}

// jsonKind names the kind of a JSON value as encoding/json's errors do.
func jsonKind(raw json.RawMessage) string {
	switch c := raw[0]; {
	case c == '"':
		return "string"
	case c == '[':
		return "array"
	case c == '{':
		return "object"
	case c == 't' || c == 'f':
		return "bool"
	}
	return "number"
}
