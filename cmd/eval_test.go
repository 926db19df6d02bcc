package cmd_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

// The stand-in model of fixtures/recorded and its recording.
var (
	fakeLLM       = mustAbs(filepath.Join("..", "fixtures", "recorded", "fake-llm.sh"))
	fakeLLMRecord = mustAbs(filepath.Join("..", "fixtures", "recorded", "fake-llm"))
	invoices      = mustAbs(filepath.Join("..", "fixtures", "invoices"))
)

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return abs
}

// evalSuite copies three fixtures into a small suite for tests of eval's
// gates, baselines, reports and recordings. Their figures are those of the
// stand-in model's invoice-summary-v1 answers, so those tests name
// --schema invoice-summary-v1; TestEvalRecordedFixtureGateV2 gates v2.
//
// The suite holds one document the stand-in model gets right, one it gets
// a field wrong (it_fattura_standard: the net total) and, in a sub-suite,
// one whose v1 answer it never gets valid (de_neue_bankverbindung_mehrseitig:
// paraphrased evidence).
func evalSuite(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	for name, sub := range map[string]string{"de_rechnung_skonto": "", "it_fattura_standard": "", "de_neue_bankverbindung_mehrseitig": "hard"} {
		for _, ext := range []string{".txt", ".expect.json"} {
			b, err := os.ReadFile(filepath.Join(invoices, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, sub, name+ext)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// worseModel writes a command provider that answers like fake-llm.sh but
// drops the invoice number (null).
func worseModel(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "worse.sh")
	script := "#!/bin/sh\n" + fakeLLM + ` | sed 's/"invoice_number": "[^"]*"/"invoice_number": null/'` + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// dropTiming removes every "timing" key, the only figures that may differ
// between two evaluations of the same answers.
func dropTiming(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "timing")
		// The date a report was made is a timing too.
		if p, ok := x["provenance"].(map[string]any); ok {
			delete(p, "date")
		}
		for k, e := range x {
			x[k] = dropTiming(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropTiming(e)
		}
	}
	return v
}

// A deliberately worse provider trips the accuracy gate: exit 3, the
// failing gate named on stderr, and the JUnit file keeps its mismatches
// (failures) apart from its rejected documents (errors).
func TestEvalGateTripsOnWorseProvider(t *testing.T) {
	t.Parallel()
	suite := evalSuite(t)
	tmp := t.TempDir()
	junit := filepath.Join(tmp, "eval.xml")
	r := invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1",
		"--provider", "command,label=good,command="+fakeLLM,
		"--provider", "command,label=worse,command="+worseModel(t),
		"--min-accuracy", "invoice_number=0.6", "--min-admission", "0.6", "--junit", junit)
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	wantErr := "invx: gate failed: worse: invoice_number accuracy 0.0% (0/3) is below --min-accuracy 60.0%\n"
	if r.stderr != wantErr {
		t.Errorf("stderr (-want +got):\n%s", cmp.Diff(wantErr, r.stderr))
	}
	for _, want := range []string{"metric\tgood\tworse", "admission\t66.7% (2/3)\t66.7% (2/3)", "invoice_number\t66.7% (2/3)\t0.0% (0/3)",
		"worse\tsmall/it_fattura_standard.txt\tinvoice_number: got null, want \"FT-2026/0118\"; total_minor: got 134140, want 163651"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}

	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Cases    []struct {
				Name      string   `xml:"name,attr"`
				Classname string   `xml:"classname,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	// Two providers' documents, and the failed gate as a failing testcase.
	if doc.Tests != 7 || doc.Failures != 4 || doc.Errors != 2 || len(doc.Suites) != 3 {
		t.Fatalf("testsuites: tests %d failures %d errors %d suites %d; want 7 4 2 3\n%s", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites), b)
	}
	got := map[string]string{}
	for _, s := range doc.Suites {
		if s.Name != "gates" && (s.Tests != 3 || s.Errors != 1) {
			t.Errorf("testsuite %s: tests %d errors %d, want 3 and 1", s.Name, s.Tests, s.Errors)
		}
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil && c.Error != nil:
				t.Errorf("%s/%s: both a failure and an error", s.Name, c.Name)
			case c.Failure != nil:
				got[s.Name+"/"+c.Name] = "failure: " + c.Failure.Message + " @" + c.Classname
			case c.Error != nil:
				got[s.Name+"/"+c.Name] = "error: " + c.Error.Type + " " + c.Error.Message + " @" + c.Classname
			default:
				got[s.Name+"/"+c.Name] = "ok @" + c.Classname
			}
		}
	}
	want := map[string]string{
		// Classnames carry the provider label, so CI viewers keep the two
		// providers' cases of one document apart.
		"good/de_rechnung_skonto.txt":                                                   "ok @small.good",
		"good/it_fattura_standard.txt":                                                  "failure: fields differ: total_minor @small.good",
		"good/hard/de_neue_bankverbindung_mehrseitig.txt":                               "error: rejected action_evidence @small.hard.good",
		"worse/de_rechnung_skonto.txt":                                                  "failure: fields differ: invoice_number @small.worse",
		"worse/it_fattura_standard.txt":                                                 "failure: fields differ: invoice_number, total_minor @small.worse",
		"worse/hard/de_neue_bankverbindung_mehrseitig.txt":                              "error: rejected action_evidence @small.hard.worse",
		"gates/worse: invoice_number accuracy 0.0% (0/3) is below --min-accuracy 60.0%": "failure: worse: invoice_number accuracy 0.0% (0/3) is below --min-accuracy 60.0% @small.gates",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("testcases (-want +got):\n%s", diff)
	}
}

// A baseline regression beyond --max-regression fails; the same provider
// against its own baseline passes.
func TestEvalBaselineRegression(t *testing.T) {
	t.Parallel()
	suite := evalSuite(t)
	base := filepath.Join(t.TempDir(), "base.json")
	r := invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "command,label=llm,command="+fakeLLM, "--json", base)
	if r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	r = invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "command,label=llm,command="+fakeLLM, "--baseline", base, "--max-regression", "0")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("same provider against its baseline: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "command,label=llm,command="+worseModel(t), "--baseline", base, "--max-regression", "0.02")
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("exit %d, want 3; stderr:\n%s", r.code, r.stderr)
	}
	want := "invx: gate failed: llm: invoice_number accuracy fell from 66.7% to 0.0% (" + base + "), more than --max-regression 2.0%\n"
	if r.stderr != want {
		t.Errorf("stderr (-want +got):\n%s", cmp.Diff(want, r.stderr))
	}
}

// The same suite evaluated twice gives the same JSON once the timing
// fields are dropped, for the rules, a command and a replay provider.
func TestEvalDeterministicJSON(t *testing.T) {
	t.Parallel()
	suite := evalSuite(t)
	tmp := t.TempDir()
	var reports []any
	for i := range 2 {
		out := filepath.Join(tmp, "run"+string(rune('a'+i))+".json")
		r := invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "rules", "--provider", "command,command="+fakeLLM,
			"--provider", "replay,replay-dir="+fakeLLMRecord, "--concurrency", "3", "--json", out)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		m := readJSON(t, out)
		if _, ok := m["timing"].(map[string]any)["wall_ms"]; !ok {
			t.Fatalf("no timing.wall_ms in %v", m)
		}
		reports = append(reports, dropTiming(m))
	}
	if diff := cmp.Diff(reports[0], reports[1]); diff != "" {
		t.Errorf("two evaluations differ apart from timings (-first +second):\n%s", diff)
	}
}

// --record writes a replayable recording per provider; replaying it gives
// the same report with zero calls to the model, under the recorded repair
// setting (replay's own default would be 0).
func TestEvalRecordThenReplay(t *testing.T) {
	t.Parallel()
	suite := evalSuite(t)
	tmp := t.TempDir()
	rec := filepath.Join(tmp, "rec")
	live := filepath.Join(tmp, "live.json")
	r := invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "command,label=my model,command="+fakeLLM, "--record", rec, "--json", live)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	dir := filepath.Join(rec, "my_model")
	if _, err := os.Stat(filepath.Join(dir, "invx-eval.json")); err != nil {
		t.Fatalf("no recording settings: %v", err)
	}
	replayed := filepath.Join(tmp, "replay.json")
	r = invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "replay,replay-dir="+dir, "--json", replayed)
	if r.code != 0 {
		t.Fatalf("replay: exit %d\n%s", r.code, r.stderr)
	}
	a, b := readJSON(t, live), readJSON(t, replayed)
	pa := dropTiming(a["providers"].([]any)[0]).(map[string]any)
	pb := dropTiming(b["providers"].([]any)[0]).(map[string]any)
	if pb["label"] != "replay:my_model" || pb["provider"] != "replay" {
		t.Errorf("replay label %v provider %v", pb["label"], pb["provider"])
	}
	for _, k := range []string{"label", "provider"} {
		delete(pa, k)
		delete(pb, k)
	}
	if diff := cmp.Diff(pa, pb); diff != "" {
		t.Errorf("replay differs from the recorded run (-live +replay):\n%s", diff)
	}
	if pb["attempts"] != float64(4) || pb["repairs"] != float64(0) {
		t.Errorf("attempts %v repairs %v: want 4 (2 for the rejected document: one repair re-ask) and 0", pb["attempts"], pb["repairs"])
	}
	// A recording holds one run: recording into it again is refused.
	r = invx(t, false, "eval", suite, "--quiet", "--schema", "invoice-summary-v1", "--provider", "command,label=my model,command="+fakeLLM, "--record", rec)
	if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, "is not empty") {
		t.Errorf("second recording: exit %d\n%s", r.code, r.stderr)
	}
}

// What CI runs on the committed invoice-v2 recording of the stand-in model:
// the v2 fields are scored and gated, the mismatch lists mask the IBAN.
func TestEvalRecordedFixtureGateV2(t *testing.T) {
	t.Parallel()
	md := filepath.Join(t.TempDir(), "eval.md")
	rec := fakeLLMRecord + "-v2"
	r := invx(t, false, "eval", invoices, "--quiet", "--schema", "invoice-v2", "--provider", "replay,replay-dir="+rec,
		"--min-admission", "0.95", "--min-accuracy", "document_type=0.95,total_minor=0.95,net_minor=0.9,line_count=0.9",
		"--baseline", rec+".eval.json", "--max-regression", "0", "--markdown", md)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| line_count | 96.8% (61/63) |", "| total_minor | 98.5% (64/65, 1 wrong) |", "**Gates passed.**", "NL02…6789"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "NL02ABNA0123456789") {
		t.Errorf("markdown shows an IBAN unmasked:\n%s", b)
	}
	// A v1 gate field that v2 does not score is a usage error, not a pass.
	r = invx(t, false, "eval", invoices, "--quiet", "--schema", "invoice-summary-v1", "--provider", "replay,replay-dir="+rec,
		"--min-accuracy", "line_count=0.9")
	if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, `unknown field "line_count"`) {
		t.Errorf("v1 gate on line_count: exit %d, stderr %s", r.code, r.stderr)
	}
}

// What CI runs on the committed invoice-summary-v1 recording of the
// stand-in model (.ci/run names the version too).
func TestEvalRecordedFixtureGate(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	md, html := filepath.Join(tmp, "eval.md"), filepath.Join(tmp, "eval.html")
	r := invx(t, false, "eval", invoices, "--quiet", "--schema", "invoice-summary-v1", "--provider", "replay,replay-dir="+fakeLLMRecord,
		"--min-admission", "0.95", "--min-accuracy", "supplier_name=0.95,invoice_number=0.95,currency=0.95,total_minor=0.95,due_date=0.9",
		"--baseline", filepath.Join(fakeLLMRecord+".eval.json"), "--max-regression", "0", "--markdown", md, "--html", html)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| admission | 98.5% (64/65) |", "**Gates passed.**", "replay:fake\\-llm: 9 of 65 documents differ"} {
		if !strings.Contains(string(b), want) && !strings.Contains(string(b), strings.ReplaceAll(want, `\-`, "-")) {
			t.Errorf("markdown lacks %q:\n%s", want, b)
		}
	}
}

func TestEvalUsageErrors(t *testing.T) {
	t.Parallel()
	badSuite := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(badSuite, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"x.txt": "Acme Ltd\nInvoice 1\n", "x.expect.json": `{"supplier": "Acme"}`} {
		if err := os.WriteFile(filepath.Join(badSuite, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edge := filepath.Join(invoices, "edge")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"db is refused", []string{"--db", "prod.db", "eval", edge}, cmd.ExitUsage, "eval does not use --db"},
		{"no suite", []string{"eval"}, cmd.ExitUsage, "want exactly one SUITE"},
		{"missing suite", []string{"eval", filepath.Join(edge, "nope")}, cmd.ExitUsage, "no such file or directory"},
		{"bad spec", []string{"eval", edge, "--provider", "model=x"}, cmd.ExitUsage, "want NAME[,model=M]"},
		{"bad spec key", []string{"eval", edge, "--provider", "openai,models=x"}, cmd.ExitUsage, `"models=x" is not one of`},
		{"duplicate label", []string{"eval", edge, "--provider", "rules", "--provider", "rules"}, cmd.ExitUsage, `a second provider labelled "rules"`},
		{"unknown provider", []string{"eval", edge, "--provider", "gpt"}, cmd.ExitUsage, `unknown provider`},
		{"unknown field", []string{"eval", edge, "--min-accuracy", "total=0.9"}, cmd.ExitUsage, `unknown field "total"`},
		{"regression without baseline", []string{"eval", edge, "--max-regression", "0.1"}, cmd.ExitUsage, "--max-regression needs --baseline"},
		{"bad price", []string{"eval", edge, "--price", "openai=1/2"}, cmd.ExitUsage, "PROVIDER:MODEL=IN/OUT"},
		{"unknown expect key names the file", []string{"eval", badSuite}, cmd.ExitError, filepath.Join(badSuite, "x.expect.json") + `: unknown key "supplier"`},
		{"missing api key", []string{"eval", edge, "--provider", "openai,model=m"}, cmd.ExitProvider, "OPENAI_API_KEY"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := invx(t, false, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr should contain %q:\n%s", r.code, tc.code, tc.want, r.stderr)
			}
		})
	}
}

// Every report format names the invx version, the VCS revision ("unknown"
// in a test binary, which records none), the date and the suite's digest.
func TestEvalReportsCarryProvenance(t *testing.T) {
	t.Parallel()
	suite := evalSuite(t)
	tmp := t.TempDir()
	out := map[string]string{}
	args := []string{"eval", suite, "--quiet", "--provider", "rules", "--min-admission", "0"}
	for _, f := range []string{"json", "junit", "markdown", "html"} {
		out[f] = filepath.Join(tmp, "eval."+f)
		args = append(args, "--"+f, out[f])
	}
	var so, se strings.Builder
	fac := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &so, ErrOut: &se}, Env: func(string) string { return "" },
		Now: func() time.Time { return t0 }}
	if code := cmd.MainWith(t.Context(), fac, args); code != 0 {
		t.Fatalf("eval: exit %d\n%s", code, se.String())
	}
	rep := readJSON(t, out["json"])
	prov, _ := rep["provenance"].(map[string]any)
	digest, _ := prov["suite_digest"].(string)
	if prov["invx_version"] != "dev" || prov["vcs_revision"] != "unknown" || prov["date"] != "2026-03-02T09:00:00Z" ||
		!regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(digest) {
		t.Fatalf("provenance %v", prov)
	}
	for f, want := range map[string][]string{
		"junit": {`<property name="invx.version" value="dev">`, `<property name="invx.vcs_revision" value="unknown">`,
			`<property name="date" value="2026-03-02T09:00:00Z">`, `<property name="suite.digest" value="` + digest + `">`,
			`timestamp="2026-03-02T09:00:00Z"`, `classname="small.rules"`, `<testcase name="all gates passed" classname="small.gates"`},
		"markdown": {"invx dev (revision unknown), 2026-03-02T09:00:00Z, suite " + digest[:len("sha256:")+12]},
		"html":     {`id="provenance">invx <code>dev</code>, revision <code>unknown</code>, 2026-03-02T09:00:00Z, suite <code>` + digest + `</code>`},
	} {
		b, err := os.ReadFile(out[f])
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s report lacks %q:\n%s", f, w, b)
			}
		}
	}
}

// The stand-in model's v2 recording states one wrong total of 65: a
// --max-wrong ceiling below 1/65 fails the run with exit 3 and names the
// field; a ceiling above it passes.
func TestEvalMaxWrongGate(t *testing.T) {
	t.Parallel()
	rec := fakeLLMRecord + "-v2"
	args := []string{"eval", invoices, "--quiet", "--schema", "invoice-v2", "--provider", "replay,replay-dir=" + rec}
	r := invx(t, false, append(args, "--max-wrong", "total_minor=0.02")...)
	if r.code != 0 {
		t.Fatalf("at the ceiling: exit %d\n%s", r.code, r.stderr)
	}
	r = invx(t, false, append(args, "--max-wrong", "total_minor=0.01")...)
	if r.code != 3 || !strings.Contains(r.stderr, "total_minor is confidently wrong on 1.5% (1/65), above --max-wrong 1.0%") {
		t.Fatalf("above the ceiling: exit %d, want 3\n%s", r.code, r.stderr)
	}
	r = invx(t, false, append(args, "--max-wrong", "total_minor=2")...)
	if r.code != 2 || !strings.Contains(r.stderr, "MAX must be a share between 0 and 1") {
		t.Fatalf("bad share: exit %d, want 2\n%s", r.code, r.stderr)
	}
}
