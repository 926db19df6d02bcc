package cmd_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// invx stats and invx eval read --price with one parser: the same bad
// value gets the same message and a usage exit from both.
func TestPriceFlagOneParser(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"openai:gpt-4.1-mini=0.40", "openai=1/2", "openai:m=1/-2", "ollama:llama3.1:8b=x/1"} {
		db := filepath.Join(t.TempDir(), "invx.db")
		stats := invx(t, false, "--db", db, "stats", "--price", bad)
		ev := invx(t, false, "eval", t.TempDir(), "--price", bad)
		if stats.code != 2 || ev.code != 2 {
			t.Errorf("%q: exit codes stats %d eval %d, want 2 and 2", bad, stats.code, ev.code)
		}
		first := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
		if first(stats.stderr) != first(ev.stderr) || !strings.HasPrefix(first(stats.stderr), "invx: --price ") {
			t.Errorf("%q: stats says %q, eval says %q; want one message", bad, first(stats.stderr), first(ev.stderr))
		}
	}
}
