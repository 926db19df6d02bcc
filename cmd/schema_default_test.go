package cmd_test

import (
	"os"
	"path/filepath"
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
