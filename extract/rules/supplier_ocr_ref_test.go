package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// alnumOf appends the letters and digits of the folded text f to dst, at
// most limit bytes of them (a rune whole): normName's key without
// allocating. garbledRepeat copied each line's out with it before
// alnumOneSubstitution; it stays as the reference.
func alnumOf(dst []byte, f string, limit int) []byte {
	for i := 0; i < len(f) && len(dst) < limit; {
		if c := f[i]; c < utf8.RuneSelf {
			if asciiAlnum[c] {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(f[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = utf8.AppendRune(dst, r)
		}
		i += w
	}
	return dst
}

// alnumOneSubstitutionRef is what garbledRepeat asked before
// alnumOneSubstitution: the key copied out, then compared.
func alnumOneSubstitutionRef(key, f string, limit int) bool {
	other := alnumOf(nil, f, limit)
	return len(other) == len(key) && oneSubstitution(key, other)
}

// TestAlnumOneSubstitutionMatchesReference holds alnumOneSubstitution to
// the copy-then-compare it replaces, with garbledRepeat's two limits (the
// key's length and one more), on every folded corpus line against keys
// cut from other lines and from the line itself with one byte changed,
// one rune changed, one added or one dropped.
func TestAlnumOneSubstitutionMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, false, 3000)
	r := rand.New(rand.NewPCG(61, 62))
	hits := 0
	for k, ln := range lines {
		f := foldString(ln)
		own := string(alnumOf(nil, f, 40))
		if own == "" {
			continue
		}
		other := string(alnumOf(nil, foldString(lines[(k*7+3)%len(lines)]), 40))
		cut := r.IntN(len(own)) + 1
		p := r.IntN(cut)
		keys := []string{own[:cut], other, own[:cut] + "x", own[:cut-1]}
		for _, c := range []string{"x", "0", "é", "ß"} {
			keys = append(keys, own[:p]+c+own[p+1:cut])
		}
		if cut >= 2 {
			keys = append(keys, own[:p]+strings.ToUpper(own[p:p+1])+own[p+1:cut])
		}
		for _, key := range keys {
			for _, limit := range []int{len(key), len(key) + 1} {
				got, want := alnumOneSubstitution(key, f, limit), alnumOneSubstitutionRef(key, f, limit)
				if got != want {
					t.Fatalf("alnumOneSubstitution(%q, %q, %d) = %v, want %v", key, f, limit, got, want)
				}
				if want {
					hits++
				}
			}
		}
	}
	if hits < atLeast(5000) {
		t.Fatalf("only %d keys one byte off: the comparison proves little", hits)
	}
}

// hasLetterRunRef is hasLetterRun as it was, rune by rune.
func hasLetterRunRef(s string) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if run++; run >= 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// TestHasLetterRunMatchesReference holds hasLetterRun to its rune-by-rune
// copy on every corpus line and on random runs of ASCII and other
// letters, digits, marks and broken UTF-8.
func TestHasLetterRunMatchesReference(t *testing.T) {
	t.Parallel()
	parts := []string{"a", "Z", "1", " ", ".", "é", "ß", "Ω", "中", "\u0301", "€", "\xff", "\xc3", "ab", "é1", "'"}
	yes, no := 0, 0
	for _, s := range scannerTexts(equivLines(t, false, 0), parts, 67, 20000) {
		got, want := hasLetterRun(s), hasLetterRunRef(s)
		if got != want {
			t.Fatalf("hasLetterRun(%q) = %v, want %v", s, got, want)
		}
		if want {
			yes++
		} else {
			no++
		}
	}
	if yes < atLeast(5000) || no < atLeast(5000) {
		t.Fatalf("%d texts with a run of letters, %d without: the comparison proves little", yes, no)
	}
}
