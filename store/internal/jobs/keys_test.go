package jobs

import (
	"bytes"
	"strings"
	"testing"
)

func TestKeyRoundTrip(t *testing.T) {
	t.Parallel()
	hexKey := strings.Repeat("0a", 32)
	for _, tc := range []struct {
		name, key string
		stored    int // bytes stored
	}{
		{"a key", hexKey, 32},
		{"empty (an open attempt's prompt hash)", "", 0},
		{"not a key (a typo in a lookup)", "nope", 4},
		{"64 characters, not hex", strings.Repeat("z", 64), 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := bin(tc.key)
			if len(b) != tc.stored {
				t.Fatalf("stored %d bytes, want %d", len(b), tc.stored)
			}
			var got string
			if err := keyOut(&got).Scan(b); err != nil {
				t.Fatal(err)
			}
			if got != tc.key {
				t.Fatalf("read back %q, want %q", got, tc.key)
			}
		})
	}
	// A 32-byte string that is not hex would read back as hex: refused,
	// and it matches no stored key.
	if _, err := binOK(strings.Repeat("x", 32)); err == nil {
		t.Fatal("a 32-byte non-hex key was accepted")
	}
}

func TestKeyRange(t *testing.T) {
	t.Parallel()
	lo, hi := keyRange("0a0b0c0d")
	in, out := bin("0a0b0c0d"+strings.Repeat("f", 56)), bin("0a0b0c0e"+strings.Repeat("0", 56))
	if bytes.Compare(lo, in) > 0 || bytes.Compare(in, hi) > 0 {
		t.Fatal("a key with the prefix is outside the range")
	}
	if bytes.Compare(out, hi) <= 0 {
		t.Fatal("a key without the prefix is inside the range")
	}
}

func TestEventColumnsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, suffix, action, kind string
		stored                     int // non-NULL columns
	}{
		{"commit event", "invoice.committed", "invoice.committed", "invoice.committed", 0},
		{"action item", "action:VPO-1", "VPO-1", "verify_purchase_order", 1},
		{"action named invoice.committed", "action:invoice.committed", "invoice.committed", "review_tax", 1},
		{"correction", "invoice.corrected:2", "invoice.corrected", "invoice.corrected", 1},
		{"action id unlike its suffix (a row before 004)", "action:x", "y", "review_tax", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, k := eventCols(tc.suffix, tc.action, tc.kind)
			n := 0
			for _, p := range []*string{a, k} {
				if p != nil {
					n++
				}
			}
			if n != tc.stored {
				t.Errorf("%d columns stored, want %d", n, tc.stored)
			}
			if action, kind := eventFill(tc.suffix, a, k); action != tc.action || kind != tc.kind {
				t.Fatalf("read back %q %q, want %q %q", action, kind, tc.action, tc.kind)
			}
		})
	}
}
