package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Receipts are scanned and OCR'd: a letter in the issuer's name may be
// misread. Two cheap, general checks use what the document itself and a
// small vocabulary say about the spelling; when either says a letter was
// misread, the extractor abstains (the value must be the document's text).

// ocrTradeWords are long business words that shop names end with; a word
// one misread letter away from one of them is that word ("ENTERORISE",
// "ENTYERPRISE"). Only words of eight letters or more: shorter ones have
// too many real neighbours.
var ocrTradeWords = []string{
	"enterprise", "enterprises", "restaurant", "restaurants", "stationery", "hardware", "marketing", "services",
	"industries", "corporation", "bakeries", "confectionery", "resources", "ventures", "supplies", "electrical",
	"engineering", "machinery", "perniagaan", "supermarket", "hypermarket", "minimarket", "distributor",
	"distributors", "holdings",
}

// ocrRealWords are real spellings one letter from a trade word: never
// "corrected".
var ocrRealWords = map[string]bool{
	"supplier": true, "suppliers": true, "stationer": true, "stationers": true, "stationary": true,
	"confectionary": true, "distributer": true, "distributers": true, "hardwares": true,
}

// garbledTradeWord reports whether an upper-case word of name is one
// misread or one stray letter away from a trade word. A word that differs
// only by a final letter (a plural, "ENTERPRISES") is no misreading.
func garbledTradeWord(name string) bool {
	for w := range strings.FieldsSeq(name) {
		if len(w) < 8 || !allUpperASCII(w) {
			continue
		}
		lw := strings.ToLower(w)
		if ocrRealWords[lw] || isTradeWord(lw) {
			continue
		}
		for _, t := range ocrTradeWords {
			if oneSubstitution(lw, t) || oneInsertion(lw, t) {
				return true
			}
		}
	}
	return false
}

func isTradeWord(w string) bool {
	for _, t := range ocrTradeWords {
		if w == t {
			return true
		}
	}
	return false
}

// allUpperASCII reports a word of upper-case ASCII letters only.
func allUpperASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// oneSubstitution reports whether a and b have the same length and differ
// in exactly one byte.
func oneSubstitution[T string | []byte](a string, b T) bool {
	if len(a) != len(b) {
		return false
	}
	diff := 0
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff == 1
}

// oneInsertion reports whether a is b with one byte inserted before b's
// last byte (an insertion at the end is a suffix, not noise).
func oneInsertion(a, b string) bool {
	if len(a) != len(b)+1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	return i < len(b) && a[i+1:] == b[i:]
}

// garbledRepeat reports whether the header repeats the name, or its first
// two words as another line's first two, with one letter different
// ("DONINO'S PIZZA" above "DOMINO'S PIZZA TAMAN ..."): one of the two
// spellings is misread and the text cannot say which. It compares the
// lines' folded text in place (alnumOneSubstitution): no copy per line.
func (d *document) garbledRepeat(name string, line int) bool {
	key := normName(name)
	if len(key) < 6 {
		return false
	}
	lead := ""
	if w := strings.Fields(name); len(w) >= 2 {
		lead = normName(w[0] + w[1])
	}
	const keyMax = 128 // longer keys are not compared
	seen := 0
	for i, ln := range d.lines {
		if ln.blank {
			continue
		}
		if seen++; seen > 12 {
			break
		}
		if i == line || !hasLetterRun(ln.raw) {
			continue
		}
		if len(key) <= keyMax && alnumOneSubstitution(key, ln.f.s, len(key)) {
			return true
		}
		if len(lead) >= 5 && len(lead) <= keyMax {
			// The brand alone repeated ("MR D.T.Y. (JOHOR) SDN BHD" over
			// "(MR DIY TESCO)").
			if w2 := firstTwoWords(ln.f.s); w2 != "" && alnumOneSubstitution(lead, w2, len(lead)+1) {
				return true
			}
		}
	}
	return false
}

// alnumOneSubstitution is oneSubstitution(key, other), other the letters
// and digits of the folded text f (normName's key), read until limit bytes
// or more are taken (a rune whole). They are compared as they are read, so
// the answer comes at the second differing byte or past key's length:
// most header lines garbledRepeat reads part from the name in their first
// letters, and were copied out to key's length first.
func alnumOneSubstitution(key, f string, limit int) bool {
	n, diff := 0, 0
	// take compares the next byte of the key with b.
	take := func(b byte) bool {
		if n >= len(key) {
			return false
		}
		if key[n] != b {
			if diff++; diff > 1 {
				return false
			}
		}
		n++
		return true
	}
	for i := 0; i < len(f) && n < limit; {
		if c := f[i]; c < utf8.RuneSelf {
			if asciiAlnum[c] && !take(c) {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(f[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			var rb [utf8.UTFMax]byte
			for _, b := range rb[:utf8.EncodeRune(rb[:], r)] {
				if !take(b) {
					return false
				}
			}
		}
		i += w
	}
	return n == len(key) && diff == 1
}

// firstTwoWords is s up to the end of its second space-separated word, ""
// when s has fewer than two.
func firstTwoWords(s string) string {
	words, in := 0, false
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			if in {
				if words++; words == 2 {
					return s[:i]
				}
			}
			in = false
			continue
		}
		in = true
	}
	if in && words == 1 {
		return s
	}
	return ""
}

// hasLetterRun reports whether s holds at least three letters in a row,
// so lines of digits and symbols are not normalised for nothing.
func hasLetterRun(s string) bool {
	run := 0
	for i := 0; i < len(s); {
		// ASCII by a byte test, without the rune decoded.
		if c := s[i]; c < utf8.RuneSelf {
			if isASCIILetter(c) {
				if run++; run >= 3 {
					return true
				}
			} else {
				run = 0
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
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
