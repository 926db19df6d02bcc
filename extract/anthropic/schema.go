package anthropic

import (
	"sync"

	"github.com/invx/invx/schema"
)

// unsupported are the keywords Anthropic's structured outputs refuse.
// Validation enforces the limits they express after the fact anyway.
var unsupported = []string{
	"maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "format", "minProperties", "maxProperties",
}

// versionSchemas caches each version's API schema: a version never
// changes, and building it (decode, strict rewrite, API rewrite) cost more
// CPU than the rest of a call. The maps are only read (encoded) after.
var versionSchemas sync.Map // *schema.Version -> cachedSchema

type cachedSchema struct {
	s      map[string]any
	strict bool
}

// versionSchema is apiSchema of v's strict JSON Schema and whether it fits
// strict mode (fitsStrict), built once per version.
func versionSchema(v *schema.Version) (map[string]any, bool) {
	if c, ok := versionSchemas.Load(v); ok {
		return c.(cachedSchema).s, c.(cachedSchema).strict
	}
	s := apiSchema(v.StrictJSONSchema())
	c, _ := versionSchemas.LoadOrStore(v, cachedSchema{s: s, strict: fitsStrict(s)})
	return c.(cachedSchema).s, c.(cachedSchema).strict
}

// apiSchema turns a strict JSON Schema (schema.Version.StrictJSONSchema) into
// one Anthropic's structured outputs and strict tools accept: every object
// closed with additionalProperties false; maxItems, minItems other than 0
// or 1, numeric and length bounds and format dropped; enum, pattern and type
// arrays kept. It changes s in place and returns it.
func apiSchema(s map[string]any) map[string]any {
	for _, k := range unsupported {
		delete(s, k)
	}
	if n, ok := s["minItems"]; ok && !isZeroOrOne(n) {
		delete(s, "minItems")
	}
	if isObject(s) {
		s["additionalProperties"] = false
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				props[name] = apiSchema(pm)
			}
		}
	}
	for _, k := range []string{"items", "not"} {
		if m, ok := s[k].(map[string]any); ok {
			s[k] = apiSchema(m)
		}
	}
	for _, k := range []string{"anyOf", "allOf", "oneOf", "prefixItems"} {
		if list, ok := s[k].([]any); ok {
			for i, v := range list {
				if m, ok := v.(map[string]any); ok {
					list[i] = apiSchema(m)
				}
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := s[k].(map[string]any); ok {
			for name, v := range defs {
				if m, ok := v.(map[string]any); ok {
					defs[name] = apiSchema(m)
				}
			}
		}
	}
	return s
}

func isObject(s map[string]any) bool {
	if _, ok := s["properties"]; ok {
		return true
	}
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
	case []string:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
	}
	return false
}

func isZeroOrOne(n any) bool {
	switch n := n.(type) {
	case float64:
		return n == 0 || n == 1
	case int:
		return n == 0 || n == 1
	case int64:
		return n == 0 || n == 1
	}
	return false
}

// Anthropic compiles every strict schema of a request (output_config.format
// and strict tools together) into one grammar and refuses, with a 400,
// requests whose schemas have more than maxUnionParams parameters of a
// union type (a type array such as ["string","null"], or anyOf) or more
// than maxOptionalParams optional ones (PROVIDERS.md section 5).
const (
	maxUnionParams    = 16
	maxOptionalParams = 24
)

// fitsStrict reports whether s, an apiSchema result, is within the limits
// of one strict schema. invoice-summary-v1 is (5 nullable facts);
// invoice-v2, with 31 nullable facts and evidence keys, is not.
func fitsStrict(s map[string]any) bool {
	unions, optional := countParams(s)
	return unions <= maxUnionParams && optional <= maxOptionalParams
}

// countParams counts, under s, the properties of a union type and the
// properties their object does not require.
func countParams(s map[string]any) (unions, optional int) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := s["required"].([]any); ok {
		for _, r := range rs {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if isUnion(pm) {
			unions++
		}
		if !required[name] {
			optional++
		}
	}
	var subs []map[string]any
	for _, p := range props {
		if pm, ok := p.(map[string]any); ok {
			subs = append(subs, pm)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		subs = append(subs, items)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := s[k].([]any); ok {
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					subs = append(subs, m)
				}
			}
		}
	}
	for _, sub := range subs {
		u, o := countParams(sub)
		unions, optional = unions+u, optional+o
	}
	return unions, optional
}

func isUnion(s map[string]any) bool {
	if _, ok := s["anyOf"]; ok {
		return true
	}
	switch t := s["type"].(type) {
	case []any:
		return len(t) > 1
	case []string:
		return len(t) > 1
	}
	return false
}
