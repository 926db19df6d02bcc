package postgres

import "testing"

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
