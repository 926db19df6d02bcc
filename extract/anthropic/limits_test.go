package anthropic

import (
	"testing"

	"github.com/invx/invx/schema"
)

// The count behind the choice between a strict schema and a non-strict
// forced tool: v1 stays strict, v2 is over the union limit, and optional
// properties count too.
func TestFitsStrict(t *testing.T) {
	t.Parallel()
	nullable := func() map[string]any { return map[string]any{"type": []any{"string", "null"}} }
	object := func(n int, required bool) map[string]any {
		props := map[string]any{}
		var req []any
		for i := range n {
			name := string(rune('a'+i/26)) + string(rune('a'+i%26))
			props[name] = nullable()
			if required {
				req = append(req, name)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	nested := func(n int) map[string]any {
		return map[string]any{"type": "object", "required": []any{"lines"}, "properties": map[string]any{
			"lines": map[string]any{"type": "array", "items": object(n, true)}}}
	}
	mustLookup := func(name string) *schema.Version {
		v, err := schema.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name           string
		s              map[string]any
		unions, option int
		fits           bool
	}{
		{"v1", apiSchema(mustLookup(schema.V1).StrictJSONSchema()), 5, 0, true},
		{"v2", apiSchema(mustLookup(schema.V2).StrictJSONSchema()), 31, 0, false},
		{"16 unions", object(16, true), 16, 0, true},
		{"17 unions", object(17, true), 17, 0, false},
		{"unions inside array items count", nested(17), 17, 0, false},
		{"anyOf is a union", map[string]any{"type": "object", "required": []any{"x"}, "properties": map[string]any{
			"x": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}}}}, 1, 0, true},
		{"25 optional", object(25, false), 25, 25, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, o := countParams(tc.s)
			if u != tc.unions || o != tc.option {
				t.Errorf("countParams = %d unions, %d optional; want %d, %d", u, o, tc.unions, tc.option)
			}
			if got := fitsStrict(tc.s); got != tc.fits {
				t.Errorf("fitsStrict = %v, want %v", got, tc.fits)
			}
		})
	}
}
