package cmd_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
)

// exportHeader: the invoice first, the bookkeeping of invx last.
var exportHeader = []string{"supplier_name", "invoice_number", "due_date", "currency", "total", "total_minor",
	"action_kinds", "source_path", "tenant", "job_key", "schema_version", "committed_at"}

// Column indexes in exportHeader.
const (
	colSourcePath = 7
	colTenant     = 8
)

// The tests in this file are about invoice-summary-v1's export, whose
// columns and bytes must never change (export-csv.golden, export-jsonl.golden),
// so they run and export v1 by name; export_v2_test.go covers invoice-v2,
// the default for new jobs.

// setupExport commits four invoice-summary-v1 results of the default tenant: at t0 with the
// rules provider a.txt (GBP, one action), a JPY and a BHD invoice from
// fixtures/invoices; at t0+1m, with the model script, formula.txt whose
// facts look like spreadsheet formulas. The clock stays at t0+1m.
func setupExport(t *testing.T) *opsEnv {
	t.Helper()
	e := setupOps(t)
	script := e.modelScript()
	ledger := filepath.Join(e.tmp, "ledger")
	if err := os.Mkdir(ledger, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		filepath.Join("testdata", "input", "a.txt"),
		filepath.Join("..", "fixtures", "invoices", "en_jp_jpy_consumption_tax.txt"),
		filepath.Join("..", "fixtures", "invoices", "en_bh_bhd_three_decimals.txt"),
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ledger, filepath.Base(src)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.must(0, "run", "--quiet", "--schema", "invoice-summary-v1", ledger)
	e.advance(time.Minute)
	odd := filepath.Join(e.tmp, "odd")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(odd, "formula.txt"), []byte("FORMULA invoice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The formula answer states no total: committed, and held as incomplete.
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "command", "--command", script, odd)
	return e
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("read back CSV: %v\n%s", err, s)
	}
	if len(rows) == 0 || !cmp.Equal(rows[0], exportHeader) {
		t.Fatalf("CSV header %v, want %v", rows[0], exportHeader)
	}
	return rows[1:]
}

func TestExportCSV(t *testing.T) {
	t.Parallel()
	e := setupExport(t)
	r := e.must(0, "export", "--schema", "invoice-summary-v1", "--format", "csv")
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
	if !utf8.ValidString(r.stdout) || strings.HasPrefix(r.stdout, "\uFEFF") {
		t.Errorf("CSV is not plain UTF-8 without BOM")
	}
	if n, crlf := strings.Count(r.stdout, "\n"), strings.Count(r.stdout, "\r\n"); n != 5 || crlf != n {
		t.Errorf("%d lines, %d CRLF; want 5 CRLF-terminated lines", n, crlf)
	}
	rows := readCSV(t, r.stdout)
	byPath := map[string][]string{}
	for _, row := range rows {
		if len(row) != len(exportHeader) {
			t.Fatalf("row %v has %d cells", row, len(row))
		}
		byPath[row[colSourcePath]] = row
	}
	ledger, odd := filepath.Join(e.tmp, "ledger"), filepath.Join(e.tmp, "odd")
	a := e.job("a.txt")
	want := map[string][]string{
		filepath.Join(ledger, "a.txt"): {"Northwind Traders Ltd", "NW-2026-0117", "2026-12-02", "GBP", "1320.00", "132000",
			"verify_purchase_order", filepath.Join(ledger, "a.txt"), "default", a.JobKey, "invoice-summary-v1", "2026-03-02T09:00:00Z"},
		filepath.Join(ledger, "en_jp_jpy_consumption_tax.txt"): {"Kisaragi Precision Co., Ltd.", "KP-260331-07", "2026-04-30", "JPY",
			"534600", "534600", "", filepath.Join(ledger, "en_jp_jpy_consumption_tax.txt"), "default",
			e.job("en_jp_jpy_consumption_tax.txt").JobKey, "invoice-summary-v1", "2026-03-02T09:00:00Z"},
		filepath.Join(ledger, "en_bh_bhd_three_decimals.txt"): {"AL REEM FACILITY SERVICES W.L.L.", "ARF/INV/2026/0412", "2026-04-30",
			"BHD", "2380.125", "2380125", "", filepath.Join(ledger, "en_bh_bhd_three_decimals.txt"), "default",
			e.job("en_bh_bhd_three_decimals.txt").JobKey, "invoice-summary-v1", "2026-03-02T09:00:00Z"},
		// Formula guard: a leading apostrophe; absent facts are empty.
		filepath.Join(odd, "formula.txt"): {"'=SUM(A1:A9)", "'@cmd", "", "", "", "", "", filepath.Join(odd, "formula.txt"), "default",
			e.job("formula.txt").JobKey, "invoice-summary-v1", "2026-03-02T09:01:00Z"},
	}
	if diff := cmp.Diff(want, byPath); diff != "" {
		t.Errorf("exported rows (-want +got):\n%s", diff)
	}
	if len(rows) != 4 || rows[3][colSourcePath] != filepath.Join(odd, "formula.txt") {
		t.Errorf("want 4 rows, oldest commit first; got %v", rows)
	}
	checkGolden(t, "export-csv.golden", sortedLines(scrub(r.stdout, e.tmp), 1))

	// --since keeps recent commits only; another tenant has none.
	if rows := readCSV(t, e.must(0, "export", "--schema", "invoice-summary-v1", "--since", "30s").stdout); len(rows) != 1 || filepath.Base(rows[0][colSourcePath]) != "formula.txt" {
		t.Errorf("--since 30s: %v", rows)
	}
	if rows := readCSV(t, e.must(0, "--tenant", "acme", "export", "--schema", "invoice-summary-v1").stdout); len(rows) != 0 {
		t.Errorf("tenant acme: %v", rows)
	}
	if r := e.must(0, "export", "--schema", "invoice-summary-v1", "--bom"); !strings.HasPrefix(r.stdout, "\uFEFFsupplier_name,") {
		t.Errorf("--bom: %q", r.stdout[:20])
	}
	for _, bad := range [][]string{{"--format", "xml"}, {"--format", "jsonl", "--bom"}, {"--since", "soon"},
		{"--schema", "invoice-summary-v9"}, {"--out", filepath.Join(e.tmp, "no", "such", "x.csv")}, {"out.csv"}} {
		if r := e.invx(false, append([]string{"export", "--schema", "invoice-summary-v1"}, bad...)...); r.code != cmd.ExitUsage {
			t.Errorf("export %v: exit %d, want 2", bad, r.code)
		}
	}
}

func TestExportJSONL(t *testing.T) {
	t.Parallel()
	e := setupExport(t)
	r := e.must(0, "export", "--schema", "invoice-summary-v1", "--format", "jsonl")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), r.stdout)
	}
	got := map[string]map[string]any{}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if len(m) != len(exportHeader) {
			t.Errorf("line has keys %v", m)
		}
		got[filepath.Base(m["source_path"].(string))] = m
	}
	checkGolden(t, "export-jsonl.golden", sortedLines(scrub(r.stdout, e.tmp), 0))
	for path, want := range map[string]map[string]any{
		"a.txt": {"currency": "GBP", "total_minor": 132000.0, "total": "1320.00",
			"action_kinds": []any{"verify_purchase_order"}},
		"en_jp_jpy_consumption_tax.txt": {"currency": "JPY", "total_minor": 534600.0, "total": "534600",
			"due_date": "2026-04-30", "action_kinds": []any{}},
		"en_bh_bhd_three_decimals.txt": {"currency": "BHD", "total_minor": 2380125.0, "total": "2380.125",
			"action_kinds": []any{}},
		// JSON Lines holds values as stored: no formula guard, nulls kept.
		"formula.txt": {"supplier_name": "=SUM(A1:A9)", "invoice_number": "@cmd", "currency": nil, "total_minor": nil,
			"total": nil, "due_date": nil, "committed_at": "2026-03-02T09:01:00Z", "action_kinds": []any{}},
	} {
		for k, v := range want {
			if diff := cmp.Diff(v, got[path][k]); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", path, k, diff)
			}
		}
	}
}

// --out replaces the file atomically and leaves no temporary file behind.
func TestExportOut(t *testing.T) {
	t.Parallel()
	e := setupExport(t)
	dir := filepath.Join(e.tmp, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"csv", "jsonl"} {
		out := filepath.Join(dir, "invoices."+format)
		if err := os.WriteFile(out, []byte("an older export\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := e.must(0, "export", "--schema", "invoice-summary-v1", "--format", format, "--out", out)
		if r.stdout != "" || !strings.Contains(r.stderr, "exported 4 result(s) to "+out) {
			t.Errorf("%s: stdout %q, stderr %q", format, r.stdout, r.stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if want := e.must(0, "export", "--schema", "invoice-summary-v1", "--format", format).stdout; string(b) != want {
			t.Errorf("%s: file differs from stdout export:\n%s\nwant:\n%s", format, b, want)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", format, fi.Mode().Perm())
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ents {
		names = append(names, d.Name())
	}
	if diff := cmp.Diff([]string{"invoices.csv", "invoices.jsonl"}, names); diff != "" {
		t.Errorf("files in the output folder (-want +got):\n%s", diff)
	}
}

// Results of another schema version are never exported with the chosen
// one, and their number is reported.
func TestExportOtherSchemaVersion(t *testing.T) {
	t.Parallel()
	e := setupExport(t)
	ctx := context.Background()
	st := e.store()
	const version = "invoice-summary-v0"
	now := e.clock()
	if err := st.BeginRun(ctx, &store.BeginRunParams{ID: "legacy", Tenant: "default", Command: "test", StartedAt: now}); err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 32)
	if _, err := st.Enqueue(ctx, &store.EnqueueParams{Tenant: "default", RunID: "legacy", Transformation: "invoice-summary",
		SchemaVersion: version, OnChange: store.OnChangeHold, Now: now,
		Docs: []store.Document{{SourceSystem: "legacy", Path: "old.txt", Digest: strings.Repeat("cd", 32), JobKey: key, Text: "old"}}}); err != nil {
		t.Fatal(err)
	}
	leases, err := st.Claim(ctx, &store.ClaimParams{Tenant: "default", Owner: "test", RunID: "legacy", Limit: 1, LeaseFor: time.Minute, Now: now})
	if err != nil || len(leases) != 1 {
		t.Fatalf("claim: %v, %d leases", err, len(leases))
	}
	l := leases[0]
	if _, err := st.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: "default", JobKey: key, Token: l.Token, AttemptID: l.AttemptID,
		RunID: "legacy", SchemaVersion: version, Result: []byte(`{"schema_version":"invoice-summary-v0","total":"12"}`),
		Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded}, Now: now}); err != nil {
		t.Fatal(err)
	}

	for _, format := range []string{"csv", "jsonl"} {
		r := e.must(0, "export", "--schema", "invoice-summary-v1", "--format", format)
		if r.stderr != "1 result of invoice-summary-v0 not exported (not a released schema version)\n" {
			t.Errorf("%s: stderr %q", format, r.stderr)
		}
		if strings.Contains(r.stdout, "old.txt") || strings.Contains(r.stdout, version) {
			t.Errorf("%s: the other version was exported:\n%s", format, r.stdout)
		}
	}
	if rows := readCSV(t, e.must(0, "export", "--schema", "invoice-summary-v1").stdout); len(rows) != 4 {
		t.Errorf("%d rows, want 4", len(rows))
	}
	// The version is not released, so it cannot be chosen either.
	if r := e.invx(false, "export", "--schema", version); r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "invx schema --list") {
		t.Errorf("--schema %s: exit %d, stderr %q", version, r.code, r.stderr)
	}
}

func TestExportAllTenants(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", "--schema", "invoice-summary-v1", e.in)
	e.must(0, "--tenant", "acme", "run", "--quiet", "--schema", "invoice-summary-v1", e.in)
	count := func(args ...string) map[string]int {
		n := map[string]int{}
		for _, row := range readCSV(t, e.must(0, args...).stdout) {
			n[row[colTenant]]++
		}
		return n
	}
	if diff := cmp.Diff(map[string]int{"acme": 2}, count("--tenant", "acme", "export", "--schema", "invoice-summary-v1")); diff != "" {
		t.Errorf("--tenant acme (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"acme": 2, "default": 2}, count("export", "--schema", "invoice-summary-v1", "--all-tenants")); diff != "" {
		t.Errorf("--all-tenants (-want +got):\n%s", diff)
	}
}

// sortedLines sorts the lines of s after the first skip ones: commits of
// one run share a time and land in the order the workers finish, so a
// golden file holds them sorted (the order itself is tested apart).
func sortedLines(s string, skip int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > skip {
		slices.Sort(lines[skip:])
	}
	return strings.Join(lines, "")
}
