package cmd_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/schema"
)

// v1Answer is a valid invoice-summary-v1 answer for v2Source.
const v1Answer = `{"schema_version":"invoice-summary-v1","title":"ACME Bürobedarf invoice RE-2026-0042",` +
	`"bullets":["EUR 1,190.00 due 2026-03-31."],` +
	`"invoice":{"supplier_name":"ACME Bürobedarf GmbH","invoice_number":"RE-2026-0042","currency":"EUR","total_minor":119000,` +
	`"due_date":"2026-03-31"},"action_items":[]}`

// versionScript writes a command provider that answers with the document
// of the schema version INVX_SCHEMA_VERSION names and logs each version it
// was asked for, one a line, in the returned file.
func versionScript(t *testing.T, tmp string) (script, calls string) {
	t.Helper()
	calls = filepath.Join(tmp, "calls")
	for name, answer := range map[string]string{schema.V1: v1Answer, schema.V2: v2Answer} {
		if err := os.WriteFile(filepath.Join(tmp, "answer-"+name+".json"), []byte(answer), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script = filepath.Join(tmp, "model.sh")
	body := "#!/bin/sh\ncat >/dev/null\necho \"$INVX_SCHEMA_VERSION\" >> " + calls +
		"\nexec cat \"" + tmp + "/answer-$INVX_SCHEMA_VERSION.json\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, calls
}

func readCalls(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// The command provider is told the schema version it must write, and a
// recording made under a version replays only under it: a v2 recording
// commits the same v2 result without running the command, and a recording
// of one version replayed for the other stops the run (exit 4) before
// anything is committed, naming the folder and both versions.
func TestV2CommandRecordReplay(t *testing.T) {
	t.Parallel()
	tmp, in := v2Input(t)
	script, calls := versionScript(t, tmp)
	recV1, recV2 := filepath.Join(tmp, "rec-v1"), filepath.Join(tmp, "rec-v2")
	run := func(db, version string, provider ...string) result {
		t.Helper()
		args := append([]string{"--db", filepath.Join(tmp, db), "run", "--quiet", "--json", "--schema", version}, provider...)
		return runEnv(t, nil, append(args, in)...)
	}

	for _, tc := range []struct {
		db, version, rec string
	}{{"v2.db", schema.V2, recV2}, {"v1.db", schema.V1, recV1}} {
		r := run(tc.db, tc.version, "--provider", "command", "--command", script, "--record", tc.rec)
		if r.code != 0 || !strings.Contains(r.stdout, `"committed":1`) {
			t.Fatalf("record %s: exit %d\n%s\n%s", tc.version, r.code, r.stdout, r.stderr)
		}
	}
	if got := readCalls(t, calls); strings.Join(got, " ") != schema.V2+" "+schema.V1 {
		t.Fatalf("INVX_SCHEMA_VERSION seen by the command: %v, want [%s %s]", got, schema.V2, schema.V1)
	}
	checkV2Result(t, filepath.Join(tmp, "v2.db"), v2Answer)
	if got := column(t, openSQLite(t, filepath.Join(tmp, "v1.db")), `SELECT schema_version FROM results`); len(got) != 1 || got[0] != schema.V1 {
		t.Fatalf("v1 run results: %v", got)
	}

	// Replayed under its own version: the same result, the command not run.
	r := run("replay-v2.db", schema.V2, "--provider", "replay", "--replay-dir", recV2)
	if r.code != 0 || !strings.Contains(r.stdout, `"committed":1`) {
		t.Fatalf("replay v2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkV2Result(t, filepath.Join(tmp, "replay-v2.db"), v2Answer)
	if n := len(readCalls(t, calls)); n != 2 {
		t.Errorf("the command ran %d times, want 2 (record only)", n)
	}

	for _, tc := range []struct {
		name, db, version, rec, recorded string
	}{
		{"v1 recording for a v2 run", "cross-a.db", schema.V2, recV1, schema.V1},
		{"v2 recording for a v1 run", "cross-b.db", schema.V1, recV2, schema.V2},
	} {
		r := run(tc.db, tc.version, "--provider", "replay", "--replay-dir", tc.rec)
		// Refused before the run: a usage error naming the folder and
		// both versions, and no database written at all.
		if r.code != cmd.ExitUsage {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, r.code, cmd.ExitUsage, r.stderr)
		}
		want := tc.rec + ": recorded under schema " + tc.recorded + ", not " + tc.version
		if !strings.Contains(r.stderr, want) {
			t.Errorf("%s: stderr %q, want it to contain %q", tc.name, r.stderr, want)
		}
		if _, err := os.Stat(filepath.Join(tmp, tc.db)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: database %s exists (%v), want nothing written", tc.name, tc.db, err)
		}
	}
}

// invx eval refuses the stand-in model's v1 recording for a v2 evaluation:
// the run stops (exit 2) instead of scoring every document as failed, and
// stderr names the folder and both versions.
func TestV2EvalRefusesV1Recording(t *testing.T) {
	t.Parallel()
	rec := filepath.Join("..", "fixtures", "recorded", "fake-llm")
	r := runEnv(t, nil, "eval", filepath.Join("..", "fixtures", "invoices"), "--quiet", "--schema", schema.V2,
		"--provider", "replay,replay-dir="+rec, "--keep-db", t.TempDir())
	if r.code != cmd.ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", r.code, cmd.ExitUsage, r.stderr)
	}
	if !strings.Contains(r.stderr, rec) || !strings.Contains(r.stderr, schema.V1) || !strings.Contains(r.stderr, schema.V2) {
		t.Errorf("stderr should name %s, %s and %s:\n%s", rec, schema.V1, schema.V2, r.stderr)
	}
}
