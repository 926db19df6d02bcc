package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// invx schema without a VERSION prints the default for new jobs,
// invoice-v2, byte for byte as invx schema invoice-v2 does (plain and
// --strict), and that is the JSON Schema pinned in schema/testdata. The
// golden cases cannot hold the plain schema: its 16-digit integer bounds
// look like run ids to the scrubber.
func TestSchemaDefaultIsV2(t *testing.T) {
	t.Parallel()
	pinned, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "invoice-v2.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		def, named []string
	}{
		{"plain", []string{"schema"}, []string{"schema", "invoice-v2"}},
		{"strict", []string{"schema", "--strict"}, []string{"schema", "invoice-v2", "--strict"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			def, named := invx(t, false, tc.def...), invx(t, false, tc.named...)
			if def.code != 0 || named.code != 0 {
				t.Fatalf("exit %d and %d; stderr %q %q", def.code, named.code, def.stderr, named.stderr)
			}
			if diff := cmp.Diff(named.stdout, def.stdout); diff != "" {
				t.Errorf("invx %v differs from invx %v (-named +default):\n%s", tc.def, tc.named, diff)
			}
			v1 := invx(t, false, append(tc.def[:1:1], append([]string{"invoice-summary-v1"}, tc.def[1:]...)...)...)
			if v1.code != 0 || v1.stdout == def.stdout {
				t.Errorf("invx schema invoice-summary-v1 (exit %d) prints the default's schema", v1.code)
			}
		})
	}
	if got := invx(t, false, "schema").stdout; got != string(pinned) {
		t.Errorf("invx schema is not schema/testdata/invoice-v2.schema.json (%d bytes, want %d)", len(got), len(pinned))
	}
}

// Every --schema flag's help names the versions, the default for new jobs
// first, and says what happens without the flag.
func TestSchemaFlagHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ command, want string }{
		{"run", `schema version of new jobs: invoice-v2 or invoice-summary-v1 (default "invoice-v2")`},
		{"eval", `schema version to evaluate: invoice-v2 or invoice-summary-v1 (default "invoice-v2")`},
		{"export", `the schema version to export, invoice-v2 or invoice-summary-v1; results of others are skipped (default "invoice-v2")`},
		{"work", `work only jobs of this schema version, invoice-v2 or invoice-summary-v1 (default: every version)`},
		{"compare", `the version compared from (the one in use): invoice-v2 or invoice-summary-v1 (default "invoice-v2")`},
	} {
		t.Run(tc.command, func(t *testing.T) {
			t.Parallel()
			r := invx(t, false, tc.command, "--help")
			if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("invx %s --help (exit %d) lacks %q:\n%s", tc.command, r.code, tc.want, r.stdout)
			}
		})
	}
}
