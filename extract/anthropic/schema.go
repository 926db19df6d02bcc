package anthropic

// unsupported are the keywords Anthropic's structured outputs refuse.
// Validation enforces the limits they express after the fact anyway.
var unsupported = []string{
	"maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "format", "minProperties", "maxProperties",
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
