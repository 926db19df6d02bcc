package cmd_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// walkSchema calls fn on every schema node under n: properties, items and
// the branches of anyOf.
func walkSchema(n map[string]any, path string, fn func(n map[string]any, path string)) {
	fn(n, path)
	if props, ok := n["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if p, ok := props[name].(map[string]any); ok {
				walkSchema(p, path+"."+name, fn)
			}
		}
	}
	if items, ok := n["items"].(map[string]any); ok {
		walkSchema(items, path+"[]", fn)
	}
	if alts, ok := n["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				walkSchema(m, path+"|", fn)
			}
		}
	}
}

// forbid reports every use of the named keywords anywhere in s.
func forbid(t *testing.T, s map[string]any, path string, keywords ...string) {
	t.Helper()
	walkSchema(s, path, func(n map[string]any, p string) {
		for _, k := range keywords {
			if _, ok := n[k]; ok {
				t.Errorf("%s: has %q, which the API refuses", p, k)
			}
		}
	})
}

// checkStrict asserts the strict-mode shape: the root is an object, and
// every object is closed and lists every one of its properties in required.
func checkStrict(t *testing.T, s map[string]any) {
	t.Helper()
	if s["type"] != "object" {
		t.Errorf("root type = %v, want object", s["type"])
	}
	walkSchema(s, "$", func(n map[string]any, p string) {
		props, ok := n["properties"].(map[string]any)
		if !ok {
			return
		}
		if n["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", p, n["additionalProperties"])
		}
		var req []string
		for _, r := range asSlice(n["required"]) {
			if s, ok := r.(string); ok {
				req = append(req, s)
			}
		}
		sort.Strings(req)
		if names := slices.Sorted(maps.Keys(props)); !slices.Equal(req, names) {
			t.Errorf("%s: required = %v, want every property %v", p, req, names)
		}
	})
}

func asSlice(v any) []any {
	a, _ := v.([]any)
	return a
}

// checkSameShape asserts that sent describes the same document as ref (the
// schema package's JSON Schema): the same properties at every level, nested
// tax_lines, line_items and evidence included, the same type (so a
// nullable fact stays ["string","null"] or ["integer","null"]) and the same
// enums.
func checkSameShape(t *testing.T, sent, ref map[string]any, path string) {
	t.Helper()
	if !reflect.DeepEqual(sent["type"], ref["type"]) {
		t.Errorf("%s: type = %v, want %v", path, sent["type"], ref["type"])
	}
	if !reflect.DeepEqual(sent["enum"], ref["enum"]) {
		t.Errorf("%s: enum = %v, want %v", path, sent["enum"], ref["enum"])
	}
	refProps, _ := ref["properties"].(map[string]any)
	sentProps, _ := sent["properties"].(map[string]any)
	if want, got := slices.Sorted(maps.Keys(refProps)), slices.Sorted(maps.Keys(sentProps)); !slices.Equal(want, got) {
		t.Errorf("%s: properties %v, want %v", path, got, want)
	}
	for name, rp := range refProps {
		sp, ok := sentProps[name].(map[string]any)
		if !ok {
			continue
		}
		checkSameShape(t, sp, rp.(map[string]any), path+"."+name)
	}
	if ri, ok := ref["items"].(map[string]any); ok {
		si, ok := sent["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: no items schema", path)
			return
		}
		checkSameShape(t, si, ri, path+"[]")
	}
}

func decodeSchema(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
