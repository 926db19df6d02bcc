package rules

import (
	"reflect"
	"testing"
)

// TestDateHitsMatchEager holds the lazily found dates to the eager pass
// newDocument made before: every line's dates, read in the document's
// order, whichever line is asked first (fixtures, development and
// synthetic texts, and the local dev set where present).
func TestDateHitsMatchEager(t *testing.T) {
	t.Parallel()
	mdyDocs := 0
	// The US fixtures read their dates month first; -race samples the
	// other texts, and which ones it keeps moves as fixtures are added.
	texts := append(selfCheckTexts(t), globTexts(t, "../../fixtures/*/en_us_*.txt")...)
	for _, text := range texts {
		d := newDocument(text)
		if d.mdy {
			mdyDocs++
		}
		// Backwards, so a line's answer cannot lean on an earlier line's.
		for k := len(d.lines) - 1; k >= 0; k-- {
			ln := d.lines[k]
			if got, want := ln.dateHits(), findDates(ln.f.s, d.mdy); !reflect.DeepEqual(got, want) {
				t.Fatalf("line %q (mdy %v): dateHits %v, want %v", ln.raw, d.mdy, got, want)
			}
		}
		d.release()
	}
	if mdyDocs == 0 {
		t.Fatal("no text reads its dates month first; the order goes untested")
	}
}
