package extract

import (
	"strings"
	"testing"
)

// includedAny's shortcut for the defaults (the extension alone) takes
// exactly the names Included takes for any of them.
func TestIncludedAnyDefaultsAsIncluded(t *testing.T) {
	t.Parallel()
	for _, p := range DefaultIncludes {
		if !strings.HasPrefix(p, "*.") || strings.ContainsAny(p[1:], `*?[\`) {
			t.Fatalf("default include %q is not *.ext: includedAny's shortcut does not hold", p)
		}
	}
	names := []string{"a.txt", "A.TXT", "a.Txt", ".txt", "a.b.txt", "a.txt.bak", "a", "txt", "a.xml", "B.XmL", "c.pdf",
		"c.PDF", "a.tx", "a.text", "a.[txt", "[a].txt", "a.txt ", "a..txt", "ä.txt", "a.ｔｘｔ"}
	for _, n := range names {
		want := false
		for _, p := range DefaultIncludes {
			want = want || Included(p, n)
		}
		if got := includedAny("", n); got != want {
			t.Errorf("includedAny(%q) = %v, Included says %v", n, got, want)
		}
	}
}
