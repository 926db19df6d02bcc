package store_test

import (
	"testing"

	"github.com/invx/invx/store"
)

func TestIsKeyPrefix(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string]bool{
		"3f2a9c1e": true, "3f2a9c1": false, "3F2A9C1E": false, "invoice.txt": false,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef":  true,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0": false,
	} {
		if got := store.IsKeyPrefix(ref); got != want {
			t.Errorf("IsKeyPrefix(%q) = %v, want %v", ref, got, want)
		}
	}
}
