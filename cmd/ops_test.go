package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
)

// t0 is when the operator tests' first run happens, on a fake clock, so
// ages and timestamps in golden files never change.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// opsEnv is one database and input folder worked by several invx commands
// in a row, on a clock the test moves.
type opsEnv struct {
	t   *testing.T
	tmp string
	in  string
	db  string

	mu  sync.Mutex
	now time.Time
}

// setupOps copies testdata/input into a fresh folder; the clock starts at t0.
func setupOps(t *testing.T) *opsEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &opsEnv{t: t, tmp: tmp, in: filepath.Join(tmp, "in"), db: filepath.Join(tmp, "invx.db"), now: t0}
	copyDir(t, filepath.Join("testdata", "input"), e.in)
	return e
}

func (e *opsEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// advance moves the clock on.
func (e *opsEnv) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

// invx runs one command against the env's database; tty makes stdout and
// stderr look like a terminal.
func (e *opsEnv) invx(tty bool, args ...string) result {
	e.t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: tty, ErrTTY: false},
		Env: func(string) string { return "" }, Now: e.clock}
	code := cmd.MainWith(context.Background(), f, append([]string{"--db", e.db}, args...))
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// must runs a command and fails the test unless it exits with want.
func (e *opsEnv) must(want int, args ...string) result {
	e.t.Helper()
	r := e.invx(false, args...)
	if r.code != want {
		e.t.Fatalf("invx %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// store opens the env's database directly, to check durable state.
func (e *opsEnv) store() store.Store {
	e.t.Helper()
	st, err := sqlite.Open(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	return st
}

// job reads one job of the default tenant by key, prefix or path.
func (e *opsEnv) job(ref string) *store.Job {
	e.t.Helper()
	j, err := e.store().GetJob(context.Background(), &store.GetJobParams{Tenant: "default", Ref: ref})
	if err != nil {
		e.t.Fatalf("get job %s: %v", ref, err)
	}
	return j
}

// write puts a file into the input folder (or a sub-folder).
func (e *opsEnv) write(rel, text string) string {
	e.t.Helper()
	p := filepath.Join(e.in, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// answer is a valid invoice-summary-v1 document with the given facts; its
// action items are empty so it is valid for any source text. It states no
// currency and no total: under the default review policy its result is
// committed as incomplete (exit 3). completeAnswer states both.
func answer(supplier, number string) string {
	return answerWith(supplier, number, nil, nil)
}

// completeAnswer is answer with a currency and a total: nothing to review.
func completeAnswer(supplier, number string) string {
	return answerWith(supplier, number, "EUR", 1000)
}

func answerWith(supplier, number string, currency, total any) string {
	doc := map[string]any{
		"schema_version": "invoice-summary-v1",
		"title":          "An invoice",
		"bullets":        []string{"Read by a script."},
		"invoice": map[string]any{"supplier_name": supplier, "invoice_number": number, "currency": currency,
			"total_minor": total, "due_date": nil},
		"action_items": []any{},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// modelScript writes a shell script for --provider command that answers by
// the document's content:
//
//	Northwind  an answer with an unknown field (rejected)
//	FAILME     exit 2 with a message (failed)
//	FLAKY      exit 2 on the first call, a valid answer after that
//	FORMULA    a valid answer whose facts look like spreadsheet formulas
//	otherwise  a valid answer
//
// Every call appends a line to the file calls in the env's folder.
func (e *opsEnv) modelScript() string {
	e.t.Helper()
	bad := strings.TrimSuffix(answer("Northwind", "NW-1"), "}") + `,"confidence":0.9}`
	script := "#!/bin/sh\n" +
		"text=$(cat)\n" +
		"echo call >> " + filepath.Join(e.tmp, "calls") + "\n" +
		"case \"$text\" in\n" +
		"*Northwind*) echo '" + bad + "' ;;\n" +
		"*FAILME*) echo 'upstream exploded' >&2; exit 2 ;;\n" +
		"*FLAKY*) if [ ! -e " + filepath.Join(e.tmp, "flaky-seen") + " ]; then touch " + filepath.Join(e.tmp, "flaky-seen") +
		"; echo 'first call fails' >&2; exit 2; fi; echo '" + answer("Flaky GmbH", "FL-1") + "' ;;\n" +
		"*FORMULA*) echo '" + answer("=SUM(A1:A9)", "@cmd") + "' ;;\n" +
		"*) echo '" + answer("Script Ltd", "S-1") + "' ;;\n" +
		"esac\n"
	p := filepath.Join(e.tmp, "model.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// calls is how often the model script ran.
func (e *opsEnv) calls() int {
	b, err := os.ReadFile(filepath.Join(e.tmp, "calls"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Count(string(b), "call\n")
}

// mixed builds a database with one job in each state that needs review,
// plus a committed one, the way a nightly batch would leave it:
//
//	a.txt  rejected (unknown field)             at t0
//	b.txt  committed at t0, changed, then held  at t0+1h
//	c.txt  failed (the model exits 2)           at t0
//
// and leaves the clock at t0+3h.
func (e *opsEnv) mixed() (script string) {
	e.t.Helper()
	script = e.modelScript()
	for _, n := range []string{"copy-of-a.txt", "bad.txt", "notes.md", ".hidden.txt"} {
		if err := os.Remove(filepath.Join(e.in, n)); err != nil {
			e.t.Fatal(err)
		}
	}
	e.write("c.txt", "Invoice 77\nFAILME\nTotal 12.00 EUR\n")
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--repair", "0", "--provider", "command", "--command", script, e.in)
	e.advance(time.Hour)
	b, err := os.ReadFile(filepath.Join(e.in, "b.txt"))
	if err != nil {
		e.t.Fatal(err)
	}
	e.write("b.txt", strings.Replace(string(b), "RE-2026-00417", "RE-2026-00418", 1))
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--repair", "0", "--provider", "command", "--command", script, e.in)
	e.advance(2 * time.Hour)
	return script
}

// checkGolden compares got with testdata/NAME (a plain file, so TestGolden
// does not take it for a case directory); -update rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd -run %s -update)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}
