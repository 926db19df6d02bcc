package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldRef is foldTo as it was before it took a shared index buffer and a
// fast path for plain ASCII: the reference TestFoldMatchesReference holds
// foldTo to.
func foldRef(raw string, withIdx bool) folded {
	b := make([]byte, 0, len(raw)+8)
	var idx []int
	if withIdx {
		idx = make([]int, 0, len(raw)+1)
	}
	drop := spacedLetters(raw)
	lastSpace := false
	prev := rune(0)
	for i := 0; i < len(raw); {
		r, w := rune(raw[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(raw[i:])
		}
		next := rune(0)
		if i+w < len(raw) {
			next = rune(raw[i+w])
			if next >= utf8.RuneSelf {
				next, _ = utf8.DecodeRuneInString(raw[i+w:])
			}
		}
		out := ""
		switch {
		case drop[i]:
			// A space inside "I N V O I C E".
		case r == utf8.RuneError && w <= 1:
			out = "?"
			lastSpace = false
		case unicode.IsSpace(r) || r == '\u200b':
			if !lastSpace {
				out = " "
			}
			lastSpace = true
		case (r == 'r' || r == 'R') && (next == 'n' || next == 'N') && isLetter(prev):
			// OCR reads "m" as "rn" ("Arnount").
			b = append(b, 'm')
			if withIdx {
				idx = append(idx, i)
			}
			lastSpace = false
			prev = next
			i += w + 1
			continue
		case r < utf8.RuneSelf && plainASCII[r]:
			// Most bytes: foldRune would only lower the case.
			lastSpace = false
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 32
			}
			b = append(b, c)
			if withIdx {
				idx = append(idx, i)
			}
			prev = r
			i += w
			continue
		default:
			lastSpace = false
			po := rune(0)
			if len(b) > 0 {
				po = rune(b[len(b)-1])
			}
			out = foldRune(r, prev, next, po)
		}
		b = append(b, out...)
		if withIdx {
			for range len(out) {
				idx = append(idx, i)
			}
		}
		prev = r
		i += w
	}
	if withIdx {
		idx = append(idx, len(raw))
	}
	return folded{s: string(b), idx: idx}
}

// foldRuneRef is foldRune as it was before foldTable: it decomposed every
// rune anew.
func foldRuneRef(r, prev, next, prevOut rune) string {
	switch r {
	case 'ß':
		return "ss"
	case 'æ', 'Æ':
		return "ae"
	case 'œ', 'Œ':
		return "oe"
	case 'ø', 'Ø':
		return "o"
	case 'đ', 'Đ':
		return "d"
	case 'ł', 'Ł', 'l', 'L', 'I', 'ı':
		return "i"
	case '°', 'º':
		return "o"
	case 'ª':
		return "a"
	case '’', '‘', '`', '´', 'ʼ':
		return "'"
	case '“', '”', '„', '«', '»':
		return "\""
	case '–', '—', '‑', '‐', '−', '‒':
		return "-"
	case '０', '１', '２', '３', '４', '５', '６', '７', '８', '９':
		return string('0' + (r - '０'))
	case '0':
		// OCR: "T0TAL", "N0.", "0ceanic".
		if isASCIILetterRune(prevOut) && !unicode.IsDigit(next) || isASCIILetterRune(next) && !unicode.IsDigit(prev) && !isLetter(prev) {
			return "o"
		}
		return "0"
	case '1':
		// OCR: "Bi11 To", "Invo1ce".
		if isASCIILetterRune(prevOut) && (next == '1' || !unicode.IsDigit(next)) {
			return "i"
		}
		return "1"
	}
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return string(r + 32)
		}
		return string(r)
	}
	d := norm.NFD.String(string(r))
	var out []rune
	for _, c := range d {
		if unicode.Is(unicode.Mn, c) {
			continue
		}
		out = append(out, unicode.ToLower(c))
	}
	if len(out) == 0 {
		return string(r)
	}
	s := string(out)
	if s == "l" {
		return "i"
	}
	return s
}

// TestFoldRuneMatchesReference holds foldRune, with its blocks, to
// foldRuneRef on every rune up to U+3000 beside letters, digits and spaces,
// on every other rune of the Basic Multilingual Plane (foldBlocks) and on
// runes above it, both sides of each block's edges.
func TestFoldRuneMatchesReference(t *testing.T) {
	t.Parallel()
	for r := rune(0); r < 0x3000; r++ {
		for _, c := range [][3]rune{{0, 0, 0}, {'a', 'b', 'c'}, {'1', '2', '3'}, {' ', ' ', ' '}, {'A', '1', 'x'}} {
			if got, want := foldRune(r, c[0], c[1], c[2]), foldRuneRef(r, c[0], c[1], c[2]); got != want {
				t.Fatalf("foldRune(%U, %q) = %q, want %q", r, c, got, want)
			}
		}
	}
	for r := rune(0x3000); r < 0x10400; r++ {
		if got, want := foldRune(r, 'a', 'b', 'c'), foldRuneRef(r, 'a', 'b', 'c'); got != want {
			t.Fatalf("foldRune(%U) = %q, want %q", r, got, want)
		}
	}
	for _, r := range []rune{0x1d400, 0x1d41a, 0x1f600, 0x2f800, unicode.MaxRune, unicode.MaxRune + 1} {
		for _, c := range [][3]rune{{0, 0, 0}, {'a', 'b', 'c'}} {
			if got, want := foldRune(r, c[0], c[1], c[2]), foldRuneRef(r, c[0], c[1], c[2]); got != want {
				t.Fatalf("foldRune(%U, %q) = %q, want %q", r, c, got, want)
			}
		}
	}
}

// TestFoldMatchesReference holds foldTo, alone and appending to one shared
// index buffer as newDocument does, to foldRef on every line of the corpus
// (in its own, upper and lower case) and on random strings of the runes
// folding treats apart: the text and every index entry.
func TestFoldMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 20000)
	parts := []string{"r", "R", "n", "N", "rn", "RN", "l", "I", "0", "1", "`", " ", "  ", "\t", "\u200b", "\u00a0",
		"ß", "Æ", "œ", "Ł", "ı", "°", "’", "“", "–", "０", "９", "T O T A L", "I N V", "a", "Z", ".", "\xff", "\xc3", "é", "元", "\x00",
		// Beside the OCR digits "0" and "1": other digits, "_", punctuation.
		"2", "9", "_", ",", "10", "01", "0a", "1,0",
		// Single letters between spaces, as maySpaceLetters counts them.
		" a ", " É ", " x y ", "\t b ", " 元 ", " \xc3 ",
		// Runs of plain ASCII longer than foldAppend's lowering buffer.
		"ABCDEFGHJKMNOPQSTUVWXYZ-ABCDEFGHJKMNOPQSTUVWXYZ-ABCDEFGHJKMNOPQSTUVWXYZ", "abcdefghjkmnopqstuvwxyz.abcdefghjkmnopqstuvwxyz.abcdefghjkmnopqstuvwxyz"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range atLeast(20000) {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	var buf []int
	changed, spaced := 0, 0
	for _, ln := range lines {
		want := foldRef(ln, true)
		if got := fold(ln); got.s != want.s || !slices.Equal(got.idx, want.idx) {
			t.Fatalf("fold(%q) = %q %v, want %q %v", ln, got.s, got.idx, want.s, want.idx)
		} else if sp := maySpaceLettersRef(ln); got.spaced != sp {
			// foldAppend counts the spaced letters on its way.
			t.Fatalf("fold(%q).spaced = %v, maySpaceLetters says %v", ln, got.spaced, sp)
		} else if sp {
			spaced++
		}
		var got folded
		got, buf = foldTo(ln, buf, true)
		if got.s != want.s || !slices.Equal(got.idx, want.idx) || cap(got.idx) != len(got.idx) {
			t.Fatalf("foldTo(%q, shared) = %q %v (cap %d), want %q %v", ln, got.s, got.idx, cap(got.idx), want.s, want.idx)
		}
		if s := foldString(ln); s != want.s {
			t.Fatalf("foldString(%q) = %q, want %q", ln, s, want.s)
		}
		if want.s != strings.ToLower(ln) {
			changed++
		}
	}
	if changed < atLeast(10000) {
		t.Fatalf("only %d lines change when folded: the comparison proves little", changed)
	}
	if spaced < atLeast(1000) {
		t.Fatalf("only %d lines may hold spaced letters: the comparison proves little", spaced)
	}
}

// normNameRef is normName as it was before it started its builder at the
// first rune it drops.
func normNameRef(s string) string {
	f := foldString(s)
	var b strings.Builder
	for _, r := range f {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestNormNameMatchesReference holds normName to normNameRef on every
// line and on random strings, with invalid UTF-8 and U+FFFD among them.
func TestNormNameMatchesReference(t *testing.T) {
	t.Parallel()
	lines := equivLines(t, true, 20000)
	lines = append(lines, "", "acme", "ACME", "a\uFFFDb", "\xffab", "ab\xff", "éa1", "-", "Ł")
	kept := 0
	for _, ln := range lines {
		want := normNameRef(ln)
		if got := normName(ln); got != want {
			t.Fatalf("normName(%q) = %q, want %q", ln, got, want)
		}
		if want != "" && want == foldString(ln) {
			kept++
		}
	}
	if kept < 50 {
		t.Fatalf("only %d names keep every rune: the shortcut is barely tested", kept)
	}
}
