package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNationalVATLabelGuards: wherever reITVATNational or reESVATNational
// matches (corpus lines as written, in both cases, and random strings
// from the labels' parts), its guard says yes; and the guards say no on
// most lines, or they would save nothing.
func TestNationalVATLabelGuards(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 2000)
	parts := []string{"P", "p", ".", " ", "\t", "I", "i", "IVA", "iva", "Partita", "partita IVA", "P.I.", "P. I.", "e", "/",
		"C.F.", "CF", ":", "n.", "C", "c", "N", "n", "F", "f", "NIF", "CIF", "NIF/CIF", "-", "B", "x", "é", "ı", "İ",
		"12345678901", "1234567", "12345678", "Z", "0"}
	rng := rand.New(rand.NewPCG(31, 32))
	labels := []string{"P.IVA", "P IVA", "p.iva", "P. IVA", "PIVA", "Partita IVA", "P.I.", "P. I.", "p.i.", "P.IVA e C.F.",
		"C.I.F.", "CIF", "N.I.F.", "NIF", "NIF-IVA", "nif/iva", "NIF/CIF", "c.i.f", "N.I.F. IVA"}
	values := []string{"12345678901", "B-1234567-Z", "B12345678", "12345678Z", "12345678-Z", "A1234567B"}
	for k := range 40000 {
		var b strings.Builder
		if k%3 == 0 { // not every other: -race samples every eighth
			b.WriteString(parts[rng.IntN(len(parts))])
			b.WriteString(labels[rng.IntN(len(labels))])
			b.WriteString([]string{"", " ", ": ", ".", " n. ", "\t"}[rng.IntN(6)])
			b.WriteString(values[rng.IntN(len(values))])
			b.WriteString(" ")
		}
		for range rng.IntN(10) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	lines = raceSample(lines)
	for _, x := range []struct {
		name  string
		match func(string) bool
		guard func(string) bool
	}{
		{"IT", func(s string) bool { return reITVATNational().MatchString(s) }, mayITVATLabel},
		{"ES", func(s string) bool { return reESVATNational().MatchString(s) }, mayESVATLabel},
	} {
		no, matched := 0, 0
		for _, s := range lines {
			m := x.match(s)
			if m {
				matched++
			}
			if x.guard(s) {
				continue
			}
			no++
			if m {
				t.Fatalf("%s: guard says no on %q, the regexp matches", x.name, s)
			}
		}
		// About 520 lines match IT's label (about 65 in a -race sample,
		// whose phase moves with the corpus size): 300 leaves room.
		if matched < atLeast(300) || no < len(lines)/4 {
			t.Fatalf("%s: %d matches, guard said no %d times of %d; the comparison would prove little", x.name, matched, no, len(lines))
		}
	}
}
