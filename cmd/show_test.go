package cmd_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/cmd"
)

// Two nightly folders each hold an a.txt with a different invoice. The
// source identity (folder, relative path) keeps them two jobs; the path as
// named to invx run tells them apart in export and show; show a.txt lists
// both instead of picking the newer.
func TestNightlyFoldersApart(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	n1 := filepath.Join(e.tmp, "nightly", "2026-03-01")
	n2 := filepath.Join(e.tmp, "nightly", "2026-03-02")
	e.in = n1
	e.write("a.txt", "INVOICE\nInvoice NIGHT-1\nSupplier: Night One Ltd\nDate: 2026-03-01\nTotal: 10.00 EUR\n")
	e.in = n2
	e.write("a.txt", "INVOICE\nInvoice NIGHT-2\nSupplier: Night Two Ltd\nDate: 2026-03-02\nTotal: 20.00 EUR\n")
	e.must(0, "run", "--quiet", n1)
	e.advance(time.Hour)
	e.must(0, "run", "--quiet", n2)

	// The default run and export: invoice-v2's columns.
	rows := readCSVWith(t, e.must(0, "export").stdout, exportHeaderV2)
	var paths []string
	for _, row := range rows {
		paths = append(paths, row[slices.Index(exportHeaderV2, "source_path")])
	}
	want := []string{filepath.Join(n1, "a.txt"), filepath.Join(n2, "a.txt")}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Errorf("exported source paths %q, want %q", paths, want)
	}

	r := e.invx(false, "show", "a.txt")
	if r.code != cmd.ExitUsage || r.stdout != "" {
		t.Fatalf("show a.txt: exit %d, stdout %q; want exit 2 and nothing on stdout", r.code, r.stdout)
	}
	checkGolden(t, "show-ambiguous.golden", scrub(r.stderr, e.tmp))

	// The full path, as given to invx run, names one job.
	for i, dir := range []string{n1, n2} {
		r := e.must(0, "show", filepath.Join(dir, "a.txt"))
		wantNo := []string{"NIGHT-1", "NIGHT-2"}[i]
		if !strings.Contains(r.stdout, "source          "+filepath.Join(dir, "a.txt")+"\n") || !strings.Contains(r.stdout, wantNo) {
			t.Errorf("show %s:\n%s", filepath.Join(dir, "a.txt"), r.stdout)
		}
	}
}
