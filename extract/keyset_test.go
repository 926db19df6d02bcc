package extract

import (
	"slices"
	"strings"
	"testing"
)

func TestKeySet(t *testing.T) {
	t.Parallel()
	a, b, c := strings.Repeat("a", 64), strings.Repeat("0b", 32), strings.Repeat("c", 64)
	var s keySet
	for _, k := range []string{c, a, c, b, "not-hex"} {
		s.add("t1", k)
	}
	s.add("t2", a)
	if got, want := s.keys("t1"), []string{c, a, c, b, "not-hex"}; !slices.Equal(got, want) {
		t.Errorf("keys = %v, want %v (order added, repeats kept)", got, want)
	}
	if got := s.len(); got != 6 {
		t.Errorf("len = %d, want 6", got)
	}
	f := s.freeze()
	var chunks [][]string
	if err := f.each("t1", 2, nil, func(ks []string) error { chunks = append(chunks, slices.Clone(ks)); return nil }); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{b, a}, {c, "not-hex"}}
	if !slices.EqualFunc(chunks, want, slices.Equal) {
		t.Errorf("each = %v, want %v (sorted, repeats dropped, in chunks)", chunks, want)
	}
	tests := []struct {
		tenant, key string
		want        bool
	}{{"t1", a, true}, {"t1", c, true}, {"t1", "not-hex", true}, {"t2", a, true}, {"t2", b, false}, {"t3", a, false},
		{"t1", strings.Repeat("d", 64), false}}
	for _, tc := range tests {
		if got := f.has(tc.tenant, tc.key); got != tc.want {
			t.Errorf("has(%s, %.8s) = %v, want %v", tc.tenant, tc.key, got, tc.want)
		}
	}
	var skipped []string
	err := f.each("t1", 10, func(k string) bool { return k == a }, func(ks []string) error {
		skipped = append(skipped, ks...)
		return nil
	})
	if want := []string{b, c, "not-hex"}; err != nil || !slices.Equal(skipped, want) {
		t.Errorf("each skipping a = %v (err %v), want %v", skipped, err, want)
	}
	var none keySet
	if !none.freeze().empty() {
		t.Errorf("empty set not empty")
	}
}
