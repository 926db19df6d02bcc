package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
)

// schemaIDBase is where a version's JSON Schema would be published. It is an
// identifier, not a fetch location: nothing in invx dereferences it.
const schemaIDBase = "https://invx.dev/schema/"

// generateJSONSchema reflects the Go type of a version into its JSON Schema.
// Everything is inlined (no $defs) because several structured-output
// implementations resolve references poorly, and a single tree is easier to
// review in the golden file.
func generateJSONSchema(name, description string, t reflect.Type) ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
	}
	s := r.ReflectFromType(t)
	s.ID = jsonschema.ID(schemaIDBase + name + ".json")
	s.Title = name
	s.Description = description
	if err := markNullable(s, t); err != nil {
		return nil, fmt.Errorf("generate json schema %s: %w", name, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("generate json schema %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// markNullable rewrites the schema of every pointer field to a type array
// such as ["string","null"]. invopop would otherwise describe a *string as a
// plain string (or, with its nullable tag, as a oneOf), and strict
// structured-output modes accept only the type-array form for null.
func markNullable(s *jsonschema.Schema, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items == nil {
			return fmt.Errorf("%s: array schema without items", t)
		}
		return markNullable(s.Items, t.Elem())
	case reflect.Struct:
		for f := range fieldsOf(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			prop, ok := s.Properties.Get(name)
			if !ok {
				return fmt.Errorf("%s: no property for field %s", t, f.Name)
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
				if prop.Type == "" {
					return fmt.Errorf("%s.%s: nullable field without a type", t, f.Name)
				}
				if prop.Extras == nil {
					prop.Extras = map[string]any{}
				}
				prop.Extras["type"] = []string{prop.Type, "null"}
				prop.Type = ""
			}
			if err := markNullable(prop, ft); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldsOf yields the exported, JSON-visible fields of a struct type in
// declaration order, the order of the document's keys.
func fieldsOf(t reflect.Type) func(yield func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// strictKeywords are the keywords kept for strict structured outputs. The
// rest (format, minLength, maxLength, minimum, maximum, $id, title) are
// refused by at least one strict implementation; validation enforces them
// after the fact anyway.
var strictKeywords = map[string]bool{
	"type":                 true,
	"description":          true,
	"properties":           true,
	"required":             true,
	"additionalProperties": true,
	"items":                true,
	"enum":                 true,
	"pattern":              true,
	"minItems":             true,
	"maxItems":             true,
}

// strictSchema converts a decoded JSON Schema node to the strict subset.
// Every object is closed and lists every property as required; a property
// that was optional becomes nullable instead, which is how strict mode
// expresses "may be absent".
func strictSchema(node map[string]any) map[string]any {
	out := make(map[string]any, len(node))
	for k, v := range node {
		if strictKeywords[k] {
			out[k] = v
		}
	}
	if items, ok := out["items"].(map[string]any); ok {
		out["items"] = strictSchema(items)
	}
	props, ok := out["properties"].(map[string]any)
	if !ok {
		return out
	}
	var required []string
	if rs, ok := out["required"].([]any); ok {
		for _, r := range rs {
			if name, ok := r.(string); ok {
				required = append(required, name)
			}
		}
	}
	newProps := make(map[string]any, len(props))
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		p = strictSchema(p)
		if !slices.Contains(required, name) {
			required = append(required, name)
			p["type"] = withNull(p["type"])
		}
		newProps[name] = p
	}
	reqAny := make([]any, len(required))
	for i, r := range required {
		reqAny[i] = r
	}
	out["properties"] = newProps
	out["required"] = reqAny
	out["additionalProperties"] = false
	return out
}

// withNull adds "null" to a JSON Schema type keyword.
func withNull(t any) any {
	switch t := t.(type) {
	case string:
		return []any{t, "null"}
	case []any:
		if slices.Contains(t, any("null")) {
			return t
		}
		return append(slices.Clone(t), "null")
	}
	return t
}
