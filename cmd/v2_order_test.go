package cmd_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/invx/invx/schema"
)

// propertyOrders walks the JSON value at the start of dec and returns, for
// every "properties" object in it, its keys in the order they were written,
// by the path of the object holding it.
func propertyOrders(t *testing.T, dec *json.Decoder, path string, out map[string][]string) {
	t.Helper()
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			k := kt.(string)
			if k != "properties" {
				propertyOrders(t, dec, path+"/"+k, out)
				continue
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				t.Fatalf("%s/properties: not an object", path)
			}
			var names []string
			for dec.More() {
				nt, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, nt.(string))
				propertyOrders(t, dec, path+"/"+nt.(string), out)
			}
			if _, err := dec.Token(); err != nil {
				t.Fatal(err)
			}
			out[path] = names
		}
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			propertyOrders(t, dec, path+"[]", out)
		}
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
	}
}

// Strict mode writes an answer's keys in the order of the schema's
// properties, so the request keeps the Go type's field order (the order of
// the prompt's skeleton: document type and currency before the amounts,
// facts before their evidence) at every level, not a map's alphabetical one.
func TestV2OpenAISchemaKeepsFieldOrder(t *testing.T) {
	t.Parallel()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	tmp, in := v2Input(t)
	f := newV2Fake(t, v2OpenAI, v2Answer)
	args := append([]string{"--db", filepath.Join(tmp, "invx.db"), "run", "--quiet", "--schema", schema.V2},
		v2OpenAI.args(f.srv.URL)...)
	if r := runEnv(t, v2OpenAI.env, append(args, in)...); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	calls := f.Calls()
	if len(calls) != 1 {
		t.Fatalf("requests = %d, want 1", len(calls))
	}
	var body struct {
		ResponseFormat struct {
			JSONSchema struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(calls[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	propertyOrders(t, json.NewDecoder(bytes.NewReader(body.ResponseFormat.JSONSchema.Schema)), "", got)
	want := map[string][]string{}
	propertyOrders(t, json.NewDecoder(bytes.NewReader(v.JSONSchema())), "", want)
	if len(want) < 5 {
		t.Fatalf("reference schema has %d objects, want the root, evidence, tax lines, line items and actions", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("property order sent:\n%v\nwant the Go field order:\n%v", got, want)
	}
}
