package driver_test

import (
	"testing"

	"github.com/invx/invx/store/internal/driver"
)

func TestNextTenant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		tenants   []string
		inflight  map[string]int
		served    map[string]int64
		exhausted map[string]bool
		maxPer    int
		want      string
		wantOK    bool
	}{
		{name: "no tenants"},
		{name: "one tenant", tenants: []string{"acme"}, want: "acme", wantOK: true},
		{
			name: "fewest live leases first", tenants: []string{"acme", "beta", "gamma"},
			inflight: map[string]int{"acme": 3, "beta": 1, "gamma": 2}, want: "beta", wantOK: true,
		},
		{
			name: "tie broken by served longest ago", tenants: []string{"acme", "beta", "gamma"},
			inflight: map[string]int{"acme": 1, "beta": 1, "gamma": 1},
			served:   map[string]int64{"acme": 30, "beta": 10, "gamma": 20}, want: "beta", wantOK: true,
		},
		{
			name: "never served counts as zero", tenants: []string{"acme", "beta"},
			served: map[string]int64{"acme": 5}, want: "beta", wantOK: true,
		},
		{
			name: "full tie keeps the first", tenants: []string{"gamma", "acme"},
			want: "gamma", wantOK: true,
		},
		{
			name: "exhausted skipped", tenants: []string{"acme", "beta"},
			inflight: map[string]int{"beta": 5}, exhausted: map[string]bool{"acme": true}, want: "beta", wantOK: true,
		},
		{
			name: "at the cap skipped", tenants: []string{"acme", "beta"},
			inflight: map[string]int{"acme": 2, "beta": 3}, maxPer: 2,
		},
		{
			name: "below the cap", tenants: []string{"acme", "beta"},
			inflight: map[string]int{"acme": 2, "beta": 1}, maxPer: 2, want: "beta", wantOK: true,
		},
		{
			name: "no cap when maxPer is zero", tenants: []string{"acme"},
			inflight: map[string]int{"acme": 100}, want: "acme", wantOK: true,
		},
		{
			name: "all exhausted", tenants: []string{"acme", "beta"},
			exhausted: map[string]bool{"acme": true, "beta": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := driver.NextTenant(tt.tenants, tt.inflight, tt.served, tt.exhausted, tt.maxPer)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("NextTenant() = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
