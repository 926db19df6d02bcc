package jobs

import (
	"testing"
	"time"
)

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{{0, ""}, {1, "?"}, {3, "?, ?, ?"}}
	for _, tc := range tests {
		if got := Placeholders(tc.n); got != tc.want {
			t.Errorf("Placeholders(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// A retry time the caller computed on its clock keeps its distance from
// the store's now; an engine on the caller's clock gets it back as it is.
func TestLater(t *testing.T) {
	t.Parallel()
	caller := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	store := caller.Add(-time.Hour) // the database is an hour behind
	tests := []struct {
		name               string
		at, callerNow, now time.Time
		want               time.Time
	}{
		{"moved", caller.Add(30 * time.Second), caller, store, store.Add(30 * time.Second)},
		{"same clock", caller.Add(30 * time.Second), caller, caller, caller.Add(30 * time.Second)},
		{"no time", time.Time{}, caller, store, time.Time{}},
		{"no caller now", caller, time.Time{}, store, caller},
	}
	for _, tc := range tests {
		if got := later(tc.at, tc.callerNow, tc.now); !got.Equal(tc.want) {
			t.Errorf("%s: later = %v, want %v", tc.name, got, tc.want)
		}
	}
}
