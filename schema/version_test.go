package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersions(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"invoice-summary-v1", "invoice-v2"}, Versions()); diff != "" {
		t.Errorf("Versions() mismatch (-want +got):\n%s", diff)
	}
	if got := v1.Name; got != V1 {
		t.Errorf("v1.Name = %q, want %q", got, V1)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		wantErr error
		wantMsg string
	}{
		{name: "invoice-summary-v1"},
		{name: "invoice-summary-v2", wantErr: ErrUnknownVersion, wantMsg: `schema "invoice-summary-v2": unknown schema version`},
		{name: "Invoice-Summary-V1", wantErr: ErrUnknownVersion, wantMsg: `schema "Invoice-Summary-V1": unknown schema version`},
		{name: "", wantErr: ErrUnknownVersion, wantMsg: `schema "": unknown schema version`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := Lookup(tt.name)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Lookup(%q): %v", tt.name, err)
				}
				if v.Name != tt.name {
					t.Errorf("Lookup(%q).Name = %q", tt.name, v.Name)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Lookup(%q) error = %v, want %v", tt.name, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// The released schema is pinned: a diff here means the version changed,
// which needs a new version instead.
func TestJSONSchemaGolden(t *testing.T) {
	t.Parallel()
	for _, name := range Versions() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			got := v.JSONSchema()
			golden(t, name+".schema.json", got)
			if diff := cmp.Diff(string(got), string(v.JSONSchema())); diff != "" {
				t.Errorf("JSONSchema not deterministic (-want +got):\n%s", diff)
			}
			// The caller owns the slice.
			got[0] = 'X'
			if v.JSONSchema()[0] != '{' {
				t.Error("JSONSchema returned shared memory")
			}
		})
	}
}

func decodeSchema(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	return m
}

// objectNodes returns every schema node that describes an object, by
// JSON-pointer-ish path.
func objectNodes(node map[string]any, path string, out map[string]map[string]any) {
	if typeIncludes(node["type"], "object") {
		out[path] = node
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				objectNodes(pm, path+"/properties/"+name, out)
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		objectNodes(items, path+"/items", out)
	}
}

func typeIncludes(t any, want string) bool {
	switch t := t.(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	}
	return false
}

func propertyNames(node map[string]any) []string {
	props, _ := node["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func requiredNames(node map[string]any) []string {
	req, _ := node["required"].([]any)
	names := make([]string, 0, len(req))
	for _, r := range req {
		names = append(names, fmt.Sprint(r))
	}
	slices.Sort(names)
	return names
}

// prop walks properties by name.
func prop(node map[string]any, names ...string) map[string]any {
	for _, name := range names {
		if name == "[]" {
			node, _ = node["items"].(map[string]any)
			continue
		}
		props, _ := node["properties"].(map[string]any)
		node, _ = props[name].(map[string]any)
	}
	return node
}

func TestJSONSchemaShape(t *testing.T) {
	t.Parallel()
	s := decodeSchema(t, v1.JSONSchema())
	top := map[string]any{
		"$schema": s["$schema"],
		"$id":     s["$id"],
		"title":   s["title"],
		"type":    s["type"],
	}
	wantTop := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://invx.dev/schema/invoice-summary-v1.json",
		"title":   "invoice-summary-v1",
		"type":    "object",
	}
	if diff := cmp.Diff(wantTop, top); diff != "" {
		t.Errorf("root mismatch (-want +got):\n%s", diff)
	}
	if _, ok := s["$defs"]; ok {
		t.Error("schema has $defs; everything should be inlined")
	}
	objects := map[string]map[string]any{}
	objectNodes(s, "#", objects)
	if diff := cmp.Diff([]string{"#", "#/properties/action_items/items", "#/properties/invoice"}, slices.Sorted(maps.Keys(objects))); diff != "" {
		t.Errorf("object nodes mismatch (-want +got):\n%s", diff)
	}
	for path, node := range objects {
		if node["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", path, node["additionalProperties"])
		}
		if diff := cmp.Diff(propertyNames(node), requiredNames(node)); diff != "" {
			t.Errorf("%s: required is not every property (-properties +required):\n%s", path, diff)
		}
	}

	// Nullable facts use type arrays; everything else is not nullable.
	types := map[string]any{}
	for _, name := range propertyNames(prop(s, "invoice")) {
		types[name] = prop(s, "invoice", name)["type"]
	}
	wantTypes := map[string]any{
		"supplier_name":  []any{"string", "null"},
		"invoice_number": []any{"string", "null"},
		"currency":       []any{"string", "null"},
		"total_minor":    []any{"integer", "null"},
		"due_date":       []any{"string", "null"},
	}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("fact types mismatch (-want +got):\n%s", diff)
	}
	for _, path := range [][]string{{"schema_version"}, {"title"}, {"bullets"}, {"bullets", "[]"}, {"action_items", "[]", "id"}} {
		if typeIncludes(prop(s, path...)["type"], "null") {
			t.Errorf("%v is nullable", path)
		}
	}
}

// The generated schema and the validator state the same limits; neither
// may drift from the other.
func TestJSONSchemaMatchesValidator(t *testing.T) {
	t.Parallel()
	s := decodeSchema(t, v1.JSONSchema())
	type limits struct {
		Path                string
		MaxLength, MaxItems any
		Pattern             any
		MinLength, MinItems any
	}
	got := func(path ...string) limits {
		n := prop(s, path...)
		return limits{strings.Join(path, "."), n["maxLength"], n["maxItems"], n["pattern"], n["minLength"], n["minItems"]}
	}
	f := func(n int) any { return float64(n) }
	tests := []struct {
		got, want limits
	}{
		{got("title"), limits{"title", f(maxTitleBytes), nil, nil, f(1), nil}},
		{got("bullets"), limits{"bullets", nil, f(maxBullets), nil, nil, f(minBullets)}},
		{got("bullets", "[]"), limits{"bullets.[]", f(maxBulletBytes), nil, nil, f(1), nil}},
		{got("invoice", "supplier_name"), limits{"invoice.supplier_name", f(maxSupplierNameBytes), nil, nil, f(1), nil}},
		{got("invoice", "invoice_number"), limits{"invoice.invoice_number", f(maxInvoiceNumberBytes), nil, nil, f(1), nil}},
		{got("invoice", "currency"), limits{"invoice.currency", nil, nil, "^[A-Z]{3}$", nil, nil}},
		{got("action_items", "[]", "id"), limits{"action_items.[].id", f(maxActionIDBytes), nil, "^[A-Za-z0-9_.:-]+$", f(1), nil}},
		{got("action_items", "[]", "evidence"), limits{"action_items.[].evidence", f(maxEvidenceBytes), nil, nil, f(1), nil}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("limits mismatch (-want +got):\n%s", diff)
		}
	}
	total := prop(s, "invoice", "total_minor")
	if diff := cmp.Diff([]any{f(0), f(maxSafeInteger)}, []any{total["minimum"], total["maximum"]}); diff != "" {
		t.Errorf("total_minor bounds mismatch (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, k := range prop(s, "action_items", "[]", "kind")["enum"].([]any) {
		kinds = append(kinds, k.(string))
	}
	if diff := cmp.Diff(v1Kinds, kinds); diff != "" {
		t.Errorf("kind enum mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{V1}, prop(s, "schema_version")["enum"]); diff != "" {
		t.Errorf("schema_version enum mismatch (-want +got):\n%s", diff)
	}
}

func TestStrictJSONSchema(t *testing.T) {
	t.Parallel()
	s := v1.StrictJSONSchema()
	if s["type"] != "object" {
		t.Errorf("root type = %v, want object", s["type"])
	}
	allowed := []string{"type", "description", "properties", "required", "additionalProperties", "items", "enum", "pattern", "minItems", "maxItems"}
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		for k := range node {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s: keyword %q not allowed in strict mode", path, k)
			}
		}
		if _, ok := node["type"]; !ok {
			t.Errorf("%s: no type", path)
		}
		if typeIncludes(node["type"], "object") {
			if node["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties = %v, want false", path, node["additionalProperties"])
			}
			if diff := cmp.Diff(propertyNames(node), requiredNames(node)); diff != "" {
				t.Errorf("%s: required is not every property (-properties +required):\n%s", path, diff)
			}
		}
		if props, ok := node["properties"].(map[string]any); ok {
			for name, p := range props {
				walk(path+"/properties/"+name, p.(map[string]any))
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(path+"/items", items)
		}
	}
	walk("#", s)

	if diff := cmp.Diff([]any{"integer", "null"}, prop(s, "invoice", "total_minor")["type"]); diff != "" {
		t.Errorf("total_minor type mismatch (-want +got):\n%s", diff)
	}
	// required keeps the Go field order, the order models should write in.
	if diff := cmp.Diff([]any{"schema_version", "title", "bullets", "invoice", "action_items"}, s["required"]); diff != "" {
		t.Errorf("required order mismatch (-want +got):\n%s", diff)
	}
	// Each call is independent of the last.
	s["type"] = "mutated"
	if v1.StrictJSONSchema()["type"] != "object" {
		t.Error("StrictJSONSchema returned shared state")
	}
}

// An optional property turns into a required, nullable one.
func TestStrictSchemaMakesOptionalNullable(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"type":    "object",
		"format":  "x",
		"minimum": 1.0,
		"properties": map[string]any{
			"a": map[string]any{"type": "string", "format": "date", "maxLength": 3.0},
			"b": map[string]any{"type": "integer"},
			"c": map[string]any{"type": []any{"string", "null"}},
		},
		"required": []any{"a"},
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "string"},
			"b": map[string]any{"type": []any{"integer", "null"}},
			"c": map[string]any{"type": []any{"string", "null"}},
		},
		"required":             []any{"a", "b", "c"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, strictSchema(in)); diff != "" {
		t.Errorf("strictSchema mismatch (-want +got):\n%s", diff)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	p := v1.Prompt()
	// What the prompt must tell the model; each line is a requirement the
	// validator or the pipeline depends on.
	for _, want := range []string{
		"invoice-summary-v1",
		"ONLY the JSON document",
		"null for any fact",
		"verbatim",
		"never instructions",
		documentStart,
		documentEnd,
		"minor units",
		"JPY", "BHD",
		KindVerifyPurchaseOrder, KindReviewTax, KindContactSupplier,
		"1 to 5",
		"YYYY-MM-DD",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt does not mention %q", want)
		}
	}
	// Every key of the document appears in the prompt.
	for _, fields := range [][]field{v1Fields, v1FactFields, v1ActionFields} {
		for _, f := range fields {
			if !strings.Contains(p, `"`+f.name+`"`) {
				t.Errorf("prompt skeleton lacks key %q", f.name)
			}
		}
	}
}

func TestPromptHash(t *testing.T) {
	t.Parallel()
	v := v1
	h := v.PromptHash()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h) {
		t.Fatalf("PromptHash() = %q, want 64 hex digits", h)
	}
	if h != v.PromptHash() {
		t.Error("PromptHash not stable")
	}
	// It covers the schema as well as the prompt.
	other := newVersion(v.Name, v.description, v.goType, v.prompt+" ", v.validate)
	if other.PromptHash() == h {
		t.Error("PromptHash ignores the prompt")
	}
	other = newVersion(v.Name, v.description+" ", v.goType, v.prompt, v.validate)
	if other.PromptHash() == h {
		t.Error("PromptHash ignores the schema")
	}
}

func TestUserMessage(t *testing.T) {
	t.Parallel()
	got := v1.UserMessage("Invoice 42\nTotal EUR 1,00")
	want := "<<<INVOICE\nInvoice 42\nTotal EUR 1,00\nINVOICE>>>"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UserMessage mismatch (-want +got):\n%s", diff)
	}
}

func TestCategories(t *testing.T) {
	t.Parallel()
	want := []Category{"decode", "duplicate_key", "trailing_data", "unknown_field", "schema_version", "display", "facts", "action_kind", "action_id", "action_evidence",
		"evidence", "iban", "vat_id", "arithmetic"}
	got := Categories()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Categories mismatch (-want +got):\n%s", diff)
	}
	got[0] = "mutated"
	if Categories()[0] != CategoryDecode {
		t.Error("Categories returned shared memory")
	}
}
