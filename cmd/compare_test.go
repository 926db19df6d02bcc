package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

// setupCompare commits the v2 documents under invoice-v2 with --shadow,
// then under invoice-summary-v1, plus credit-copy.txt under v1 only (a
// document the v2 run never saw). The acme invoice agrees on every fact;
// the credit note differs on supplier_name only (v1 read it without the
// "="), its totals agreeing as magnitudes.
func setupCompare(t *testing.T) *opsEnv {
	t.Helper()
	e := setupV2(t, "--shadow")
	if err := os.WriteFile(filepath.Join(e.v2In(), "credit-copy.txt"), []byte("Credit Note CN-7, second copy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// credit-copy.txt is the credit note again: a possible duplicate,
	// committed for review (exit 3).
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "command", "--command", e.v1Script(), e.v2In())
	return e
}

func TestCompare(t *testing.T) {
	t.Parallel()
	e := setupCompare(t)
	args := []string{"compare", "--schema", "invoice-summary-v1", "--with", "invoice-v2"}

	r := e.must(0, append(args, "--json")...)
	var rep struct {
		Compared   int `json:"compared"`
		OnlySchema int `json:"only_schema"`
		OnlyWith   int `json:"only_with"`
		Fields     []struct {
			Field         string
			Agree, Differ int
		} `json:"fields"`
		Differences []struct {
			Path       string  `json:"path"`
			Field      string  `json:"field"`
			SchemaVal  *string `json:"schema_value"`
			WithVal    *string `json:"with_value"`
			WithShadow bool    `json:"with_shadow"`
		} `json:"differences"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Compared != 2 || rep.OnlySchema != 1 || rep.OnlyWith != 0 {
		t.Errorf("compared %d, only v1 %d, only v2 %d; want 2, 1, 0", rep.Compared, rep.OnlySchema, rep.OnlyWith)
	}
	agree := map[string]int{}
	for _, f := range rep.Fields {
		agree[f.Field] = f.Agree
	}
	want := map[string]int{"supplier_name": 1, "invoice_number": 2, "currency": 2, "total_minor": 2, "due_date": 2, "action_kinds": 2}
	if diff := cmp.Diff(want, agree); diff != "" {
		t.Errorf("agreement (-want +got):\n%s", diff)
	}
	if len(rep.Differences) != 1 || rep.Differences[0].Field != "supplier_name" ||
		*rep.Differences[0].SchemaVal != "Formula Supplies Ltd" || *rep.Differences[0].WithVal != "=Formula Supplies Ltd" ||
		!rep.Differences[0].WithShadow || rep.Differences[0].Path != filepath.Join(e.v2In(), "credit.txt") {
		t.Errorf("differences %+v", rep.Differences)
	}
	checkGolden(t, "compare-json.golden", scrub(r.stdout, e.tmp))
	// Column widths on a terminal follow the temporary folder's length.
	tty := regexp.MustCompile(`  +`).ReplaceAllString(scrub(e.invx(true, args...).stdout, e.tmp), "  ")
	checkGolden(t, "compare-tty.golden", tty)
	checkGolden(t, "compare-piped.golden", scrub(e.must(0, args...).stdout, e.tmp))
}

func TestCompareUsage(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"compare", "--schema", "invoice-v2", "--with", "invoice-v2"}, "name two versions"},
		{[]string{"compare", "--schema", "invoice-summary-v1", "--with", "invoice-v9"}, "unknown schema version"},
		{[]string{"compare", "--schema", "invoice-summary-v1"}, "--with"},
	} {
		r := e.invx(false, tc.args...)
		if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, tc.msg) || !strings.Contains(r.stderr, "Try: invx compare") {
			t.Errorf("%v: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
	}
}
