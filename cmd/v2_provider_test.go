package cmd_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/invx/invx/internal/zsttest"
	"github.com/invx/invx/schema"
)

// attemptRow is the durable record of one provider call.
type attemptRow struct {
	No                          int
	Outcome, Category, Provider string
	PromptHash                  string
}

func v2Attempts(t *testing.T, db string) []attemptRow {
	t.Helper()
	rows, err := openSQLite(t, db).Query(`SELECT attempt_no, outcome, category, provider, lower(hex(prompt_hash)) FROM attempts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []attemptRow
	for rows.Next() {
		var a attemptRow
		if err := rows.Scan(&a.No, &a.Outcome, &a.Category, &a.Provider, &a.PromptHash); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkV2Result asserts the database holds exactly one result, of schema
// invoice-v2, equal to want as a JSON document.
func checkV2Result(t *testing.T, db, want string) {
	t.Helper()
	rows, err := openSQLite(t, db).Query(`SELECT schema_version, result, result_zst FROM results`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		var version, result string
		var zst []byte
		if err := rows.Scan(&version, &result, &zst); err != nil {
			t.Fatal(err)
		}
		result = zsttest.Unzst(t, zst, result)
		if version != schema.V2 {
			t.Errorf("result schema_version = %q, want %q", version, schema.V2)
		}
		var got, exp any
		if err := json.Unmarshal([]byte(result), &got); err != nil {
			t.Fatalf("stored result: %v", err)
		}
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("stored result differs from the answer:\n got %s\nwant %s", result, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("results rows = %d, want 1", n)
	}
}

// Every LLM adapter asks for invoice-v2 in the form its API accepts, and
// what it gets back ends as a committed v2 result in a real SQLite file;
// an answer whose sums disagree is re-asked once with the arithmetic fault
// and the corrected answer is committed.
func TestV2ProvidersOverLoopback(t *testing.T) {
	t.Parallel()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	ref := decodeSchema(t, v.JSONSchema())
	wires := []v2Wire{v2OpenAI, v2Anthropic("json_schema"), v2Anthropic("tool"), v2Ollama}
	for _, w := range wires {
		for _, tc := range []struct {
			name    string
			answers []string
			want    []attemptRow
		}{
			{"valid", []string{v2Answer}, []attemptRow{{No: 1, Outcome: "succeeded"}}},
			{"arithmetic repaired", []string{v2BadSums, v2Answer},
				[]attemptRow{{No: 1, Outcome: "rejected", Category: "arithmetic"}, {No: 2, Outcome: "succeeded"}}},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				tmp, in := v2Input(t)
				f := newV2Fake(t, w, tc.answers...)
				db := filepath.Join(tmp, "invx.db")
				args := append([]string{"--db", db, "run", "--quiet", "--json", "--schema", schema.V2,
					"--concurrency", "1"}, w.args(f.srv.URL)...)
				r := runEnv(t, w.env, append(args, in)...)
				if r.code != 0 || !strings.Contains(r.stdout, `"committed":1`) {
					t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
				}

				calls := f.Calls()
				if len(calls) != len(tc.answers) {
					t.Fatalf("requests = %d, want %d", len(calls), len(tc.answers))
				}
				for i, c := range calls {
					if c.System != v.Prompt() {
						t.Errorf("request %d: system prompt is not the invoice-v2 prompt:\n%.200s", i+1, c.System)
					}
					if len(c.User) == 0 || c.User[0] != v.UserMessage(v2Source) {
						t.Errorf("request %d: first user text is not the framed document: %.120q", i+1, c.User)
					}
					w.checkSchema(t, c.Schema)
					checkSameShape(t, c.Schema, ref, "$")
				}
				if len(calls[0].User) != 1 {
					t.Errorf("first request: %d user texts, want only the document", len(calls[0].User))
				}
				if len(calls) == 2 {
					fb := calls[1].User
					if len(fb) != 2 || !strings.Contains(fb[1], "arithmetic: total_minor: net_minor + tax_minor differs from total_minor") {
						t.Errorf("repair request does not carry the arithmetic fault: %q", fb[1:])
					}
				}

				got := v2Attempts(t, db)
				for i := range got {
					if got[i].PromptHash != v.PromptHash() {
						t.Errorf("attempt %d: prompt_hash is not invoice-v2's", got[i].No)
					}
					if got[i].Provider != strings.Split(w.name, "-")[0] {
						t.Errorf("attempt %d: provider %q", got[i].No, got[i].Provider)
					}
					got[i].PromptHash, got[i].Provider = "", ""
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("attempts = %+v, want %+v", got, tc.want)
				}
				checkV2Result(t, db, v2Answer)
			})
		}
	}
}

// The full JSON Schema goes to Ollama's format, which turns it into a
// grammar: nothing of it is lost on the way.
func TestV2OllamaFormatIsTheSchema(t *testing.T) {
	t.Parallel()
	v, err := schema.Lookup(schema.V2)
	if err != nil {
		t.Fatal(err)
	}
	tmp, in := v2Input(t)
	f := newV2Fake(t, v2Ollama, v2Answer)
	args := append([]string{"--db", filepath.Join(tmp, "invx.db"), "run", "--quiet", "--schema", schema.V2},
		v2Ollama.args(f.srv.URL)...)
	if r := runEnv(t, nil, append(args, in)...); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	calls := f.Calls()
	if len(calls) != 1 {
		t.Fatalf("requests = %d, want 1", len(calls))
	}
	if want := decodeSchema(t, v.JSONSchema()); !reflect.DeepEqual(calls[0].Schema, want) {
		t.Errorf("format is not the invoice-v2 JSON Schema")
	}
}
