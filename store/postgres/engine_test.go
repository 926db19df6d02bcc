package postgres

import (
	"fmt"
	"testing"
)

func TestRebind(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`a = ? AND b IN ('', ?)`, `a = $1 AND b IN ('', $2)`},
		{`x = '?' AND "c?" = ?`, `x = '?' AND "c?" = $1`},
		{`'it''s' = ?`, `'it''s' = $1`},
	}
	for _, tc := range tests {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// rebind's cache stays bounded however many distinct texts come (an IN list
// per length), and a text past the bound is still numbered right.
func TestRebindCacheBounded(t *testing.T) {
	t.Parallel()
	for i := range 2 * maxRebound {
		q := fmt.Sprintf("SELECT %d WHERE a IN (?, ?)", i)
		if got, want := rebind(q), fmt.Sprintf("SELECT %d WHERE a IN ($1, $2)", i); got != want {
			t.Fatalf("rebind(%q) = %q, want %q", q, got, want)
		}
	}
	n := 0
	rebound.Range(func(any, any) bool { n++; return true })
	if n > maxRebound {
		t.Errorf("rebind cache holds %d texts, want at most %d", n, maxRebound)
	}
}
