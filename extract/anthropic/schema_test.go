package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/invx/invx/extract/extracttest"
)

func TestAPISchema(t *testing.T) {
	t.Parallel()
	s := apiSchema(extracttest.V1().StrictJSONSchema())
	// Round-trip through JSON, as the wire sees it.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	bullets := props["bullets"].(map[string]any)
	if _, ok := bullets["maxItems"]; ok {
		t.Errorf("bullets keeps maxItems")
	}
	if bullets["minItems"] != float64(1) {
		t.Errorf("bullets.minItems = %v, want 1 kept", bullets["minItems"])
	}
	invoice := props["invoice"].(map[string]any)["properties"].(map[string]any)
	if diff := cmp.Diff(map[string]any{
		"type":        []any{"string", "null"},
		"pattern":     "^[A-Z]{3}$",
		"description": "ISO 4217 code in upper case, such as EUR, USD or JPY.",
	}, invoice["currency"]); diff != "" {
		t.Errorf("currency (-want +got):\n%s", diff)
	}
	item := props["action_items"].(map[string]any)["items"].(map[string]any)
	if item["additionalProperties"] != false {
		t.Errorf("action item object is not closed")
	}
	if kind := item["properties"].(map[string]any)["kind"].(map[string]any); len(kind["enum"].([]any)) != 3 {
		t.Errorf("kind enum = %v", kind["enum"])
	}
	var walk func(path string, n map[string]any)
	walk = func(path string, n map[string]any) {
		for _, k := range []string{"maxItems", "minimum", "maximum", "minLength", "maxLength", "format"} {
			if _, ok := n[k]; ok {
				t.Errorf("%s keeps %s", path, k)
			}
		}
		if p, ok := n["properties"].(map[string]any); ok {
			if n["additionalProperties"] != false {
				t.Errorf("%s is not closed", path)
			}
			for name, v := range p {
				walk(path+"."+name, v.(map[string]any))
			}
		}
		if it, ok := n["items"].(map[string]any); ok {
			walk(path+"[]", it)
		}
	}
	walk("$", got)
}

func TestAPISchemaDropsBigMinItems(t *testing.T) {
	t.Parallel()
	got := apiSchema(map[string]any{"type": "array", "minItems": float64(2), "maxItems": float64(3),
		"items": map[string]any{"type": "object", "properties": map[string]any{}}})
	want := map[string]any{"type": "array",
		"items": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOneLineScrubsKeys(t *testing.T) {
	t.Parallel()
	got := oneLine("invalid x-api-key: sk-ant-api03-canary-123 (sk-ant-***abcd)", 200)
	if strings.Contains(got, "canary") || strings.Contains(got, "abcd") {
		t.Fatalf("key not scrubbed: %q", got)
	}
}
