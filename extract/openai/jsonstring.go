package openai

import "github.com/invx/invx/schema"

// appendJSONString appends s as a JSON string exactly as encoding/json
// encodes a string (HTML-safe: <, > and & escaped as \u003c, \u003e,
// \u0026; U+2028 and U+2029 escaped; invalid UTF-8 as \ufffd), without
// json.Marshal's reflection and its copy of the result
// (TestAppendJSONStringMatchesMarshal).
func appendJSONString(dst []byte, s string) []byte {
	return schema.AppendJSONStringHTML(dst, s)
}
