package cmd_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/invx/invx/store"
)

// The IBAN of testdata/input-v2/acme, electronic and as the text prints it.
const (
	acmeIBAN      = "DE89370400440532013000"
	acmeIBANPrint = "DE89 3704 0044 0532 0130 00"
)

// fromResult is show's text output from its result line on: the attempt
// lines before it hold run ids and durations.
func fromResult(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "\nresult ")
	if i < 0 {
		t.Fatalf("no result in:\n%s", out)
	}
	// Result ids follow the order the workers commit in.
	return regexp.MustCompile(`(?m)^result +id \d+,`).ReplaceAllString(out[i+1:], "result          id N,")
}

func TestShowV2(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
		iban   bool // whether the IBAN may be printed in full
	}{
		{"masked", []string{"show", "--text", "acme.txt"}, "show-v2.golden", false},
		{"reveal", []string{"show", "--text", "--reveal", "acme.txt"}, "show-v2-reveal.golden", true},
		{"credit note", []string{"show", "credit.txt"}, "show-v2-credit.golden", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromResult(t, e.must(0, tc.args...).stdout)
			full := strings.Contains(got, acmeIBAN) || strings.Contains(got, acmeIBANPrint)
			if full != tc.iban && tc.name != "credit note" {
				t.Errorf("IBAN printed in full: %v, want %v:\n%s", full, tc.iban, got)
			}
			if !tc.iban && hasAccountDigits(got) {
				t.Errorf("account digits printed:\n%s", got)
			}
			checkGolden(t, tc.golden, got)
		})
	}
}

func TestShowV2JSON(t *testing.T) {
	t.Parallel()
	e := setupV2(t)
	doc := func(args ...string) (string, map[string]any) {
		t.Helper()
		var out struct {
			Result struct {
				Document json.RawMessage `json:"document"`
			} `json:"result"`
			Text string `json:"text"`
		}
		r := e.must(0, append([]string{"show", "--json", "--text"}, args...)...)
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(out.Result.Document, &m); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, out.Result.Document); err != nil {
			t.Fatal(err)
		}
		return compact.String() + "\n" + out.Text, m
	}
	masked, m := doc("acme.txt")
	if m["supplier_iban"] != "DE89…3000" || m["evidence"].(map[string]any)["supplier_iban"] != "IBAN DE89…3000" {
		t.Errorf("masked document: iban %v, evidence %v", m["supplier_iban"], m["evidence"])
	}
	if hasAccountDigits(masked) {
		t.Errorf("account digits in --json output:\n%s", masked)
	}
	checkGolden(t, "show-v2-json.golden", masked)
	revealed, m := doc("--reveal", "acme.txt")
	if m["supplier_iban"] != acmeIBAN || !strings.Contains(revealed, "IBAN "+acmeIBANPrint) {
		t.Errorf("--reveal: iban %v\n%s", m["supplier_iban"], revealed)
	}
	// Revealed, the document is the stored one, byte for byte.
	stored, err := e.store().GetResult(t.Context(), &store.GetResultParams{Tenant: "default", JobKey: e.job("acme.txt").JobKey})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(revealed, string(stored.JSON)+"\n") {
		t.Errorf("--reveal document differs from the stored one")
	}
}

// No listing but export and show --reveal prints the account digits of an
// IBAN, nor does any log line of the run that read it.
func TestIBANMaskedInListings(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.copyV2Inputs()
	run := e.must(0, "--log-format", "json", "--log-level", "debug", "run", "--schema", "invoice-v2",
		"--provider", "command", "--command", e.v2Script(), e.v2In())
	if !strings.Contains(run.stderr, `"stage":"committed"`) {
		t.Fatalf("no commit logged on stderr, nothing checked:\n%s", run.stderr)
	}
	if hasAccountDigits(run.stderr) || hasAccountDigits(run.stdout) {
		t.Errorf("run output or logs hold the IBAN:\n%s\n%s", run.stdout, run.stderr)
	}
	for _, args := range [][]string{
		{"jobs"}, {"jobs", "--json"}, {"review"}, {"review", "--json"}, {"outbox", "list"}, {"stats", "--json"},
		{"show", "acme.txt"}, {"show", "--json", "--text", "acme.txt"},
	} {
		r := e.invx(true, args...)
		if hasAccountDigits(r.stdout + r.stderr) {
			t.Errorf("invx %s prints the IBAN:\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"show", "--reveal", "acme.txt"}, {"export", "--schema", "invoice-v2"}} {
		if r := e.must(0, args...); !hasAccountDigits(r.stdout) {
			t.Errorf("invx %s does not print the IBAN:\n%s", strings.Join(args, " "), r.stdout)
		}
	}
}

// hasAccountDigits reports whether s holds the account part of the test
// IBAN DE89 3704 0044 0532 0130 00, in electronic or print form. A short
// digit group would also match the random digits of a temporary folder.
func hasAccountDigits(s string) bool {
	return strings.Contains(s, "0532013000") || strings.Contains(s, "0532 0130 00")
}
