package cmd_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/internal/zsttest"
)

// malformedTemplate is a valid answer whose title, supplier_name and
// invoice_number are filled in as raw JSON string contents, so a case can
// carry escapes (a lone surrogate) that no Go string can hold.
const malformedTemplate = `{"schema_version":"invoice-summary-v1","title":"TITLE","bullets":["One point."],` +
	`"invoice":{"supplier_name":"SUPPLIER","invoice_number":"NUMBER","currency":null,"total_minor":null,"due_date":null},` +
	`"action_items":[]}`

// Malformed answers, end to end: through the real OpenAI adapter (a
// loopback server speaking the Chat Completions wire format), the runner
// and a SQLite file. Each document's answer is rejected with its category
// and nothing is committed; the valid surrogate pair is committed decoded.
func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                    string
		title, supplier, number string // raw JSON string contents
		wantState, wantCategory string
	}{
		{"lone high surrogate in title", `Invoice \ud800`, "ACME GmbH", "A-1", "rejected", "decode"},
		{"lone low surrogate in supplier", "Invoice", `ACME \udfff GmbH`, "A-1", "rejected", "decode"},
		{"high surrogate without its low half", "Invoice", "ACME GmbH", `A-1\ud83dx`, "rejected", "decode"},
		{"RLO in supplier_name", "Invoice", `ACME \u202eHbmG`, "A-1", "rejected", "display"},
		{"raw RLI in title", "Invoice \u2067A-1\u2069", "ACME GmbH", "A-1", "rejected", "display"},
		{"RLM in invoice_number", "Invoice", "ACME GmbH", `A-\u200f1`, "rejected", "display"},
		{"valid surrogate pair", `Invoice \ud83d\udcc4`, "ACME GmbH", "A-1", "succeeded", ""},
	}
	byMarker := map[string]string{}
	docs := map[string]string{}
	for i, tt := range tests {
		marker := "CASE-" + string(rune('A'+i)) + "-END"
		byMarker[marker] = strings.NewReplacer("TITLE", tt.title, "SUPPLIER", tt.supplier, "NUMBER", tt.number).Replace(malformedTemplate)
		docs[marker+".txt"] = "ACME GmbH\nInvoice A-1\nRef: " + marker + "\n"
	}
	srv := chatServer(t, func(messages string) (int, string) {
		for marker, answer := range byMarker {
			if strings.Contains(messages, marker) {
				return http.StatusOK, answer
			}
		}
		t.Errorf("no case marker in the request")
		return http.StatusBadRequest, "no case"
	})
	in := writeInputs(t, docs)
	db := filepath.Join(t.TempDir(), "invx.db")
	r := runEnv(t, nil, "--db", db, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test",
		"--base-url", srv.URL+"/v1", "--repair", "0", in)
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("exit %d, want %d\n%s", r.code, cmd.ExitNeedsReview, r.stderr)
	}
	sdb := openSQLite(t, db)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "%CASE-" + string(rune('A'+i)) + "-END.txt"
			var state, category string
			err := sdb.QueryRow(`SELECT j.state, a.category FROM jobs j JOIN attempts a ON a.job_id = j.id
				WHERE j.source_path LIKE ? ORDER BY a.attempt_no DESC LIMIT 1`, path).Scan(&state, &category)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tt.wantState, tt.wantCategory}, []string{state, category}); diff != "" {
				t.Errorf("job state, category (-want +got):\n%s", diff)
			}
			var results int
			if err := sdb.QueryRow(`SELECT count(*) FROM results r JOIN jobs j ON j.id = r.job_id WHERE j.source_path LIKE ?`, path).Scan(&results); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[tt.wantState == "succeeded"]; results != want {
				t.Errorf("%d results, want %d", results, want)
			}
		})
	}
	bodies := zsttest.Texts(t, sdb, `SELECT result, result_zst FROM results`)
	if len(bodies) != 1 {
		t.Fatalf("%d results, want 1", len(bodies))
	}
	var doc struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(bodies[0]), &doc); err != nil {
		t.Fatal(err)
	}
	title := doc.Title
	if title != "Invoice \U0001F4C4" {
		t.Errorf("committed title %q, want the pair decoded", title)
	}
}
