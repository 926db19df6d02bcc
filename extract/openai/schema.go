package openai

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"sync"

	"github.com/invx/invx/schema"
)

// schemas caches each version's response schema: a version never changes,
// and building it (decode, strict rewrite, ordered encode) cost more CPU
// than the rest of a call.
var schemas sync.Map // *schema.Version -> any

// responseSchema is the response_format schema of version v: orderedSchema
// of its strict JSON Schema, or the schema itself if that cannot be
// ordered. Shared by every call: the encoded form is never mutated.
func responseSchema(v *schema.Version) any {
	if s, ok := schemas.Load(v); ok {
		return s
	}
	strict := v.StrictJSONSchema()
	var s any = strict
	if ordered, err := orderedSchema(strict); err == nil {
		s = ordered
	}
	got, _ := schemas.LoadOrStore(v, s)
	return got
}

// orderedSchema encodes a strict JSON Schema (schema.Version.StrictJSONSchema)
// with every object's properties in the order of its required list, which
// is the Go type's field order; other keys are sorted. Strict mode writes an
// answer's keys in the schema's property order, and a Go map would encode
// them alphabetically: for invoice-v2 that is amounts before currency and
// document_type, evidence before the facts it backs, and the title last.
// The order the prompt's skeleton shows is the one a model reasons best in.
func orderedSchema(node map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := writeNode(&buf, node); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeNode writes a schema node: its subschemas recursively, everything
// else as encoding/json would.
func writeNode(buf *bytes.Buffer, v any) error {
	node, ok := v.(map[string]any)
	if !ok {
		return writeValue(buf, v)
	}
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeValue(buf, k); err != nil {
			return err
		}
		buf.WriteByte(':')
		var err error
		switch val := node[k]; k {
		case "properties":
			err = writeProperties(buf, val, names(node["required"]))
		case "items", "not", "additionalProperties":
			err = writeNode(buf, val)
		case "anyOf", "allOf", "oneOf", "prefixItems":
			err = writeList(buf, val)
		case "$defs", "definitions":
			err = writeProperties(buf, val, nil)
		default:
			err = writeValue(buf, val)
		}
		if err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeProperties writes a map of names to schema nodes, the names in
// order first and the rest sorted.
func writeProperties(buf *bytes.Buffer, v any, order []string) error {
	props, ok := v.(map[string]any)
	if !ok {
		return writeValue(buf, v)
	}
	var keys, rest []string
	for _, k := range order {
		if _, ok := props[k]; ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for k := range props {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	buf.WriteByte('{')
	for i, k := range append(keys, rest...) {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeValue(buf, k); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := writeNode(buf, props[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func writeList(buf *bytes.Buffer, v any) error {
	list, ok := v.([]any)
	if !ok {
		return writeValue(buf, v)
	}
	buf.WriteByte('[')
	for i, item := range list {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeNode(buf, item); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

// writeValue writes v as encoding/json does, without HTML escaping: the
// schema's descriptions are read by a model, not a browser.
func writeValue(buf *bytes.Buffer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimRight(b.Bytes(), "\n"))
	return nil
}

// names returns the strings of a decoded JSON array.
func names(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
