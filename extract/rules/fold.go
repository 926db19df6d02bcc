package rules

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// folded is a matching form of one raw line: lower case, accents removed,
// whitespace collapsed, common OCR confusions evened out ("l" and "I" both
// become "i", "0" between letters becomes "o"). idx maps every byte of s back
// to the byte offset in the raw line of the rune that produced it, so a match
// found in s can be cut out of the raw text verbatim.
type folded struct {
	s   string
	idx []int // len(s)+1 entries; idx[len(s)] == len(raw)
	// spaced: raw may hold letter-spaced words (maySpaceLetters), which
	// fold joins: a cell's fold is then not cut from s (cellFold).
	spaced bool
}

// rawSpan converts a byte span of the folded string to a byte span of raw.
func (f folded) rawSpan(start, end int) (int, int) {
	if start < 0 {
		start = 0
	}
	if end > len(f.s) {
		end = len(f.s)
	}
	if start > end {
		start = end
	}
	rs := f.idx[start]
	var re int
	if end == len(f.s) {
		re = f.idx[len(f.s)]
	} else {
		re = f.idx[end]
		// end falls inside the output of one rune: include the whole rune.
		if end > 0 && f.idx[end-1] == re {
			k := end
			for k < len(f.s) && f.idx[k] == re {
				k++
			}
			if k == len(f.s) {
				re = f.idx[len(f.s)]
			} else {
				re = f.idx[k]
			}
		}
	}
	if re < rs {
		re = rs
	}
	return rs, re
}

// foldPos converts a raw byte offset to the first folded byte at or after it.
func (f folded) foldPos(raw int) int {
	return sort.Search(len(f.s), func(k int) bool { return f.idx[k] >= raw })
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }

func isASCIILetterRune(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// foldString is fold without the index, for lexicon entries and cells.
func foldString(s string) string { f, _ := foldTo(s, nil, false); return f.s }

// fold builds the matching form of raw.
func fold(raw string) folded { f, _ := foldTo(raw, nil, true); return f }

// foldTo builds the matching form of raw, with the index back to raw when
// withIdx is set (foldString's callers need only the text). The index is
// appended to idxBuf (newDocument passes one buffer for all its lines, a
// slice per line was a tenth of its allocations) and cut from it with its
// capacity capped, so a later append does not write into it.
func foldTo(raw string, idxBuf []int, withIdx bool) (folded, []int) {
	// A cell's folding fits the stack buffer: its string is then the one
	// allocation, as with a builder's.
	var arr [64]byte
	out := arr[:0]
	if len(raw)+8 > len(arr) {
		out = make([]byte, 0, len(raw)+8)
	}
	out, f, idx := foldAppend(out, raw, idxBuf, withIdx)
	f.s = string(out)
	return f, idx
}

// foldAppend is foldTo appending the folded text to out (newDocument folds
// every line into one buffer and cuts the lines from the document's folded
// text: a string per line, and joining them, were two copies and a
// twentieth of its allocations). A byte slice, not a strings.Builder: the
// builder's copy check on every WriteByte was a fifth of the folding. The
// folded it returns has no s; the caller cuts it from out.
//
// The line is folded as if it held no letter-spaced word, counting on the
// way the spaced letters maySpaceLetters counts: a pass of its own over
// every line cost a fifth of the folding, and a line with such a word is
// rare, so only that line is folded again, joining its letters.
func foldAppend(out []byte, raw string, idxBuf []int, withIdx bool) ([]byte, folded, []int) {
	base, from := len(out), len(idxBuf)
	idx := idxBuf
	if withIdx && cap(idx)-len(idx) < len(raw)+1 {
		idx = slices.Grow(idx, len(raw)+1)
	}
	out, idx, openers := foldUnspaced(out, raw, idx, withIdx)
	spaced := openers >= 2 // maySpaceLetters(raw)
	if spaced {
		if drop := spacedLetters(raw); drop != nil {
			out, idx = foldSpaced(out[:base], raw, idx[:from], withIdx, drop)
		}
	}
	if !withIdx {
		return out, folded{}, idxBuf
	}
	idx = append(idx, len(raw))
	return out, folded{idx: idx[from:len(idx):len(idx)], spaced: spaced}, idx
}

// foldUnspaced is foldAppend's loop for a line without letter-spaced words
// (no index entry for len(raw) yet). It returns maySpaceLetters's count:
// the spaces that open a single letter followed by a space. Every " " of
// the line is read by its white space case, and only the last of a run
// can open a letter.
func foldUnspaced(out []byte, raw string, idx []int, withIdx bool) ([]byte, []int, int) {
	base := len(out)
	var last byte // the last byte appended to out
	lastSpace := false
	prev := rune(0)
	openers := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		if runFold[c] != 0 || c == '0' || c == '1' {
			// Most bytes: runs of plain ASCII that foldRune would only
			// lower, the OCR letters it reads one way whatever their
			// neighbours, the digits "0" and "1" where no ASCII letter
			// stands beside them, and single spaces between words, a run
			// at a time with one table look-up a byte. An "rn" ends the
			// run: the OCR branch below decides it, as it does a "0" or
			// "1" touching a letter. The run is written into room made
			// once for the rest of the line.
			rest := raw[i:]
			if cap(out)-len(out) < len(rest) {
				out = slices.Grow(out, len(rest))
			}
			n := len(out)
			var prevOut byte
			if n > base {
				prevOut = last
			}
			var k, op int
			if withIdx {
				m := len(idx)
				k, op = foldRunIdx(out[n:n+len(rest)], idx[m:m+len(rest)], rest, i, prevOut)
				idx = idx[:m+k]
			} else {
				k, op = foldRun(out[n:n+len(rest)], rest, prevOut)
			}
			if k > 0 {
				out = out[:n+k]
				i += k
				openers += op
				lastSpace = false
				prev = rune(raw[i-1])
				last = out[len(out)-1]
				continue
			}
		}
		if c == ' ' || c == '\t' {
			// White space between columns, runs of it: one space for the
			// run, as below, without decoding its neighbours.
			j := i + 1
			for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t') {
				j++
			}
			if !lastSpace {
				out = append(out, ' ')
				last = ' '
				if withIdx {
					idx = append(idx, i)
				}
			}
			lastSpace = true
			prev = rune(raw[j-1])
			if raw[j-1] == ' ' && j+1 < len(raw) {
				// maySpaceLetters's test at the run's last space.
				if c := raw[j]; c < utf8.RuneSelf {
					if raw[j+1] == ' ' && (c|0x20)-'a' < 26 {
						openers++
					}
				} else if r, w := utf8.DecodeRuneInString(raw[j:]); j+w < len(raw) && raw[j+w] == ' ' && unicode.IsLetter(r) {
					openers++
				}
			}
			i = j
			continue
		}
		if ocrASCII[c] {
			// The ASCII letters and digits OCR confuses: foldRune's
			// answer for them, without the rune switch and the white
			// space test the other runes need.
			lastSpace = false
			if (c == 'r' || c == 'R') && i+1 < len(raw) && (raw[i+1] == 'n' || raw[i+1] == 'N') && isLetter(prev) {
				out = append(out, 'm') // OCR reads "m" as "rn", as below
				last = 'm'
				if withIdx {
					idx = append(idx, i)
				}
				prev = rune(raw[i+1])
				i += 2
				continue
			}
			var o byte
			switch c {
			case 'l', 'L', 'I':
				o = 'i'
			case '`':
				o = '\''
			case 'r', 'R':
				o = 'r'
			default: // '0', '1'
				next := rune(0)
				if i+1 < len(raw) {
					next = rune(raw[i+1])
					if next >= utf8.RuneSelf {
						next, _ = utf8.DecodeRuneInString(raw[i+1:])
					}
				}
				po := rune(0)
				if len(out) > base {
					po = rune(last)
				}
				o = foldOCRDigit(rune(c), prev, next, po)
			}
			out = append(out, o)
			last = o
			if withIdx {
				idx = append(idx, i)
			}
			prev = rune(c)
			i++
			continue
		}
		if c < utf8.RuneSelf && plainASCII[c] {
			// NUL: plain, but not in runFold.
			lastSpace = false
			prev = rune(c)
			out = append(out, c)
			last = c
			if withIdx {
				idx = append(idx, i)
			}
			i++
			continue
		}
		r, w := rune(c), 1
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
		o := ""
		switch {
		case r == utf8.RuneError && w <= 1:
			o = "?"
			lastSpace = false
		case unicode.IsSpace(r) || r == '\u200b':
			if !lastSpace {
				o = " "
			}
			lastSpace = true
		case (r == 'r' || r == 'R') && (next == 'n' || next == 'N') && isLetter(prev):
			// OCR reads "m" as "rn" ("Arnount").
			out = append(out, 'm')
			last = 'm'
			if withIdx {
				idx = append(idx, i)
			}
			lastSpace = false
			prev = next
			i += w + 1
			continue
		default:
			lastSpace = false
			po := rune(0)
			if len(out) > base {
				po = rune(last)
			}
			o = foldRune(r, prev, next, po)
		}
		if o != "" {
			out = append(out, o...)
			last = o[len(o)-1]
		}
		if withIdx {
			for range len(o) {
				idx = append(idx, i)
			}
		}
		prev = r
		i += w
	}
	return out, idx, openers
}

// foldRun writes to dst the fold of the run at the start of s and returns
// its length and the single letters among its words (maySpaceLetters's
// count, see runDigit); dst is as long as s, prevOut is the byte folded
// before s (0 when none).
func foldRun(dst []byte, s string, prevOut byte) (int, int) {
	dst = dst[:len(s)]
	openers := 0
	for k := 0; k < len(s); k++ {
		c := s[k]
		l := runFold[c]
		switch {
		case l == 'r':
			if k+1 < len(s) && s[k+1]|0x20 == 'n' {
				return k, openers
			}
		case l != 0:
		case c == ' ':
			// A single space between words (see runDigit), written
			// out here: a call a space cost more than the run saved.
			if k == 0 || k+1 >= len(s) || !runContinues(s, k+1) {
				return k, openers
			}
			if isASCIILetter(s[k+1]) && k+2 < len(s) && s[k+2] == ' ' {
				openers++
			}
			l = ' '
		default:
			if l = runDigit(s, k, dst, prevOut); l == 0 {
				return k, openers
			}
		}
		dst[k] = l
	}
	return len(s), openers
}

// foldRunIdx is foldRun that also writes each byte's raw offset, s's
// first being off, to idx (as long as s). It is a copy of foldRun's loop
// on purpose: one loop asking "idx != nil" at every byte cost 17k
// instructions per document (1,420k -> 1,437k, synthetic invoice-v2).
func foldRunIdx(dst []byte, idx []int, s string, off int, prevOut byte) (int, int) {
	dst, idx = dst[:len(s)], idx[:len(s)]
	openers := 0
	for k := 0; k < len(s); k++ {
		c := s[k]
		l := runFold[c]
		switch {
		case l == 'r':
			if k+1 < len(s) && s[k+1]|0x20 == 'n' {
				return k, openers
			}
		case l != 0:
		case c == ' ':
			// A single space between words (see runDigit), written
			// out here: a call a space cost more than the run saved.
			if k == 0 || k+1 >= len(s) || !runContinues(s, k+1) {
				return k, openers
			}
			if isASCIILetter(s[k+1]) && k+2 < len(s) && s[k+2] == ' ' {
				openers++
			}
			l = ' '
		default:
			if l = runDigit(s, k, dst, prevOut); l == 0 {
				return k, openers
			}
		}
		dst[k] = l
		idx[k] = off + k
	}
	return len(s), openers
}

// runDigit is the fold of s[k] inside a run (dst holding the run's fold
// before k) for a byte runFold does not map and not a space, 0 where the
// run ends: "0" or "1" after a byte that is no ASCII letter, a "0" also
// before one, is the digit itself (foldOCRDigit's answer there). A single
// space between run bytes goes on the run too (foldRun): foldUnspaced's
// white space case writes it as it is, and the run counts its opener
// (a single letter and a space after it) as that case does.
func runDigit(s string, k int, dst []byte, prevOut byte) byte {
	c := s[k]
	if c != '0' && c != '1' {
		return 0
	}
	p := prevOut
	if k > 0 {
		p = dst[k-1]
	}
	if isASCIILetter(p) || c == '0' && k+1 < len(s) && isASCIILetter(s[k+1]) {
		return 0
	}
	return c
}

// runContinues reports whether runByte takes s[j], the byte after a space.
func runContinues(s string, j int) bool {
	c := s[j]
	if l := runFold[c]; l != 0 {
		return !(l == 'r' && j+1 < len(s) && s[j+1]|0x20 == 'n')
	}
	return c == '1' || c == '0' && !(j+1 < len(s) && isASCIILetter(s[j+1]))
}

// foldSpaced is foldAppend's loop for a line with letter-spaced words:
// the spaces in drop (spacedLetters) are left out, every other rune is
// folded by foldRune, plain ASCII only lowered.
func foldSpaced(out []byte, raw string, idx []int, withIdx bool, drop map[int]bool) ([]byte, []int) {
	base := len(out)
	var last byte // the last byte appended to out
	lastSpace := false
	prev := rune(0)
	for i := 0; i < len(raw); {
		if c := raw[i]; c < utf8.RuneSelf && plainASCII[c] && !drop[i] {
			lastSpace = false
			prev = rune(c)
			if 'A' <= c && c <= 'Z' {
				c += 32
			}
			out = append(out, c)
			last = c
			if withIdx {
				idx = append(idx, i)
			}
			i++
			continue
		}
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
		o := ""
		switch {
		case drop[i]:
			// A space inside "I N V O I C E".
		case r == utf8.RuneError && w <= 1:
			o = "?"
			lastSpace = false
		case unicode.IsSpace(r) || r == '\u200b':
			if !lastSpace {
				o = " "
			}
			lastSpace = true
		case (r == 'r' || r == 'R') && (next == 'n' || next == 'N') && isLetter(prev):
			// OCR reads "m" as "rn" ("Arnount").
			out = append(out, 'm')
			last = 'm'
			if withIdx {
				idx = append(idx, i)
			}
			lastSpace = false
			prev = next
			i += w + 1
			continue
		default:
			lastSpace = false
			po := rune(0)
			if len(out) > base {
				po = rune(last)
			}
			o = foldRune(r, prev, next, po)
		}
		if o != "" {
			out = append(out, o...)
			last = o[len(o)-1]
		}
		if withIdx {
			for range len(o) {
				idx = append(idx, i)
			}
		}
		prev = r
		i += w
	}
	return out, idx
}

// spacedLetters marks the single spaces of letter-spaced words ("T O T A L",
// at least four letters) so that fold joins them.
func spacedLetters(raw string) map[int]bool {
	if !maySpaceLetters(raw) {
		return nil
	}
	var drop map[int]bool
	type rp struct {
		r   rune
		off int
	}
	var rs []rp
	for i, r := range raw {
		rs = append(rs, rp{r, i})
	}
	isSingle := func(k int) bool {
		return k < len(rs) && unicode.IsLetter(rs[k].r) &&
			(k == 0 || unicode.IsSpace(rs[k-1].r)) && (k+1 == len(rs) || !unicode.IsLetter(rs[k+1].r) && rs[k+1].r != '.')
	}
	for k := 0; k < len(rs); k++ {
		if !isSingle(k) {
			continue
		}
		e := k
		for e+2 < len(rs) && rs[e+1].r == ' ' && isSingle(e+2) {
			e += 2
		}
		if (e-k)/2+1 >= 4 {
			if drop == nil {
				drop = map[int]bool{}
			}
			for j := k + 1; j < e; j += 2 {
				drop[rs[j].off] = true
			}
		}
		k = e
	}
	return drop
}

// plainASCII marks the ASCII runes foldRune only lowers: not white space
// (fold's own case), nor the letters and digits OCR confuses, nor "`".
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !unicode.IsSpace(rune(c)) && !strings.ContainsRune("lLI01`rR", rune(c))
	}
	return t
}()

// ocrASCII marks the ASCII bytes foldRune reads as other letters or
// digits, or as a quote: not plain, not white space.
var ocrASCII = func() (t [256]bool) {
	for _, c := range []byte("lLI01`rR") {
		t[c] = true
	}
	return t
}()

// plainLower maps each plainASCII byte to its lower case, every other
// byte to 0: NUL, plain too, is left to the byte-at-a-time path.
var plainLower = func() (t [256]byte) {
	for c := range utf8.RuneSelf {
		if plainASCII[c] {
			t[c] = lowerASCII(byte(c))
		}
	}
	return t
}()

// runFold is plainLower with the OCR letters that fold one way wherever
// they stand: "l", "L" and "I" as "i", "`" as "'", and "r" and "R" as "r"
// (foldAppend ends a run before an "rn", which OCR may have made of an
// "m"). A run of plain ASCII broke at each of them.
var runFold = func() (t [256]byte) {
	t = plainLower
	t['l'], t['L'], t['I'], t['`'], t['r'], t['R'] = 'i', 'i', 'i', '\'', 'r', 'r'
	return t
}()

// foldOCRDigit is foldRune of '0' or '1', which OCR prints for "o" and
// "i" inside words.
func foldOCRDigit(r, prev, next, prevOut rune) byte {
	if r == '0' {
		// OCR: "T0TAL", "N0.", "0ceanic".
		if isASCIILetterRune(prevOut) && !unicode.IsDigit(next) || isASCIILetterRune(next) && !unicode.IsDigit(prev) && !isLetter(prev) {
			return 'o'
		}
		return '0'
	}
	// OCR: "Bi11 To", "Invo1ce".
	if isASCIILetterRune(prevOut) && (next == '1' || !unicode.IsDigit(next)) {
		return 'i'
	}
	return '1'
}

// maySpaceLetters is a cheap necessary condition for spacedLetters to find
// anything, so the common line costs no allocation: a run of four single
// letters joined by spaces has at least two letters with a space on either
// side ("T O T A L" has " O ", " T " and " A ").
func maySpaceLetters(raw string) bool {
	n := 0
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != ' ' {
			if raw[i+1] != ' ' {
				i++ // neither opens a spaced letter: past both
			}
			continue
		}
		c := raw[i+1]
		if c < utf8.RuneSelf {
			if raw[i+2] == ' ' && unicode.IsLetter(rune(c)) {
				n++
			}
			continue
		}
		r, w := utf8.DecodeRuneInString(raw[i+1:])
		if i+1+w < len(raw) && raw[i+1+w] == ' ' && unicode.IsLetter(r) {
			n++
		}
	}
	return n >= 2
}

// asciiStrings holds each ASCII byte as a string: string(r) allocates one
// per call, and foldRune gives one for every digit and OCR letter.
var asciiStrings = func() (t [utf8.RuneSelf]string) {
	for c := range utf8.RuneSelf {
		t[c] = string(rune(c))
	}
	return t
}()

func foldRune(r, prev, next, prevOut rune) string {
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
		return asciiStrings['0'+(r-'０')]
	case '0', '1':
		return asciiStrings[foldOCRDigit(r, prev, next, prevOut)]
	}
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return asciiStrings[r+32]
		}
		return asciiStrings[r]
	}
	if r < foldBlockEnd {
		return foldBlock(r)
	}
	return foldRuneNFD(r)
}

// foldBlockEnd bounds foldBlocks: the Basic Multilingual Plane.
const foldBlockEnd = 0x10000

// foldBlocks holds foldRuneNFD of the runes below foldBlockEnd, 256 runes
// a block, each block built on its first use: the decomposition and its
// three allocations ran for every accented letter, and a table of the
// two-byte runes alone still left every "€" (U+20AC) of every line and
// cell to it (a tenth of a synthetic document's allocations). A block is
// a few hundred decompositions, once; runes above the plane are rare and
// decomposed each time.
var foldBlocks [foldBlockEnd >> 8]atomic.Pointer[[256]string]

// foldBlock is foldRuneNFD(r) for 0x80 <= r < foldBlockEnd, from its block.
func foldBlock(r rune) string {
	b := foldBlocks[r>>8].Load()
	if b == nil {
		b = buildFoldBlock(r >> 8)
	}
	return b[r&0xff]
}

// buildFoldBlock builds and stores block hi of foldBlocks; two goroutines
// building the same block store equal tables, so the race is harmless.
func buildFoldBlock(hi rune) *[256]string {
	b := new([256]string)
	for lo := range rune(256) {
		if r := hi<<8 | lo; r >= utf8.RuneSelf {
			b[lo] = foldRuneNFD(r)
		}
	}
	foldBlocks[hi].Store(b)
	return b
}

// foldRuneNFD is foldRune of a rune none of its cases name: its canonical
// decomposition without combining marks, lower-cased.
func foldRuneNFD(r rune) string {
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

// phraseRE turns a lexicon phrase into a regular expression over folded
// text: spaces match any (or no) whitespace, a dot is optional, a hyphen may
// be a space or missing, and word edges are anchored.
func phraseRE(p string) string {
	f := foldString(strings.TrimSpace(p))
	var b strings.Builder
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
	}
	if len(f) > 0 && isWord(f[0]) {
		b.WriteString(`\b`)
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == ' ':
			b.WriteString(`\s*`)
		case c == '.':
			if i > 0 && isWord(f[i-1]) {
				b.WriteString(`(?:\s?\.|\b)\s*`)
			} else {
				b.WriteString(`\.?\s*`)
			}
		case c == '-' || c == '/':
			b.WriteString(`[\s\-/]*`)
		case c == '\'':
			b.WriteString(`['\s]?`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if len(f) > 0 && isWord(f[len(f)-1]) {
		b.WriteString(`\b`)
	}
	return b.String()
}

// lexicon is a list of phrases compiled on first use (lexicons are
// package-level variables; see tables.go for why not at init).
//
// Matching one big alternation over a whole line makes Go's NFA re-enter
// every phrase at every byte, which dominated the extractor's CPU time. A
// phrase's pattern begins with its first folded bytes (after an optional
// \b), so a match at position s can only come from the phrases that open
// with the text there. The lexicon therefore keeps its phrases compiled for
// a byte-level matcher (phraseProg, lexmatch.go), grouped by their first one
// to three letters (byKey) or, for phrases opening with another byte, by
// that byte (first), with the leading \b taken off and checked by find
// against f[s-1] and f[s] instead; searching tries them position by
// position, word start by word start, and bitsets of the phrases' first
// letters rule out most positions without a lookup. This is exactly the
// leftmost-longest match of the full expression: the first position with
// any match, and the longest match there (TestLexiconSearchMatchesRegexp
// holds every lexicon to it). Phrases whose first character phraseRE makes
// optional ("-", ".") would break this; such a lexicon keeps the full
// expression, behind a cheap test of word beginnings (mayMatch).
type lexicon struct {
	build func() *lexTables // builds the tables once, on first use
	list  func() []string   // the phrases, for the line key index (lexKeyIndex)
	id    int               // the lexicon's index in lexicons
	// t holds the built tables: a lexicon is asked some thousand times
	// per document, and the call through sync.OnceValue's closure was a
	// twentieth of the time.
	t atomic.Pointer[lexTables]
}

// tables returns the compiled lexicon, built on first use. The first use
// is a call of its own, so this one inlines into the searches (some
// fifteen hundred per document).
func (lx *lexicon) tables() *lexTables {
	if t := lx.t.Load(); t != nil {
		return t
	}
	return lx.buildTables()
}

func (lx *lexicon) buildTables() *lexTables {
	t := lx.build()
	lx.t.Store(t)
	return t
}

// lexTables is a compiled lexicon.
type lexTables struct {
	// re is the full expression, compiled on first use: only a lexicon
	// whose phrases the tables cannot search (full) needs it, and tests.
	// Compiled for every lexicon it was most of the extractor's memory.
	re     func() *regexp.Regexp
	keys   keySet // folded first word bytes (up to 3) of each phrase
	stems  keySet // the one- and two-byte beginnings of longer keys
	always bool   // some phrase starts with a non-letter
	prefix bool   // anchored at the start of the text
	id     int    // the lexicon's index in lexicons, -1 if built outside newLexicon

	// first holds the phrases by first byte, nil when none opens with a
	// byte outside byKey (most lexicons: the 6.4 KB table was, kept in each
	// of some 330 lexicons, about 2 MB of a run's live heap) or when full.
	first    *firstProgs
	firstSet [4]uint64 // the bytes first holds phrases for, as bits
	hasFirst bool      // firstSet is not empty (few lexicons: mayFind skips it)
	// byKeyOnly: the lexicon is one of lexicons (id set), not anchored,
	// and opens its phrases only by key (byKey, no first): most are, and
	// line.mayHave answers them with two bit tests.
	byKeyOnly bool
	keyOnly   int // id when byKeyOnly, else past every id (mayHave's test)
	// byKey holds instead the phrases that open with an ASCII letter or
	// digit, by the code (keySet's) of their first one to three word bytes,
	// so find tries only the phrases that share the text's first letters;
	// those are grouped by the literal they open with (phraseGroup).
	byKey map[int][]phraseGroup
	full  bool // some phrase may start with more than one byte ("-", "."): use the full expression
}

// firstProgs are a lexicon's phrases by first byte, their leading \b taken
// off and checked by find instead (bounded[c]).
type firstProgs struct {
	progs   [256][]phraseProg
	bounded [256]bool
}

// lexRE compiles phrases into one leftmost-longest alternation (on first
// use).
func lexRE(phrases ...string) *lexicon {
	return newLexicon(``, func() []string { return phrases })
}

// lexPrefixRE is lexRE anchored at the start of the text.
func lexPrefixRE(phrases ...string) *lexicon {
	return newLexicon(`^`, func() []string { return phrases })
}

// newLexicon returns a lexicon of the phrases listed by list, which runs
// (like the compilation) on first use.
func newLexicon(anchor string, list func() []string) *lexicon {
	lx := &lexicon{list: list, id: len(lexicons)}
	lx.build = onFirstUse(func() *lexTables {
		t := compileLexicon(anchor, list())
		t.id = lx.id
		t.byKeyOnly = t.id >= 0 && !t.prefix && !t.hasFirst && t.byKey != nil
		if t.byKeyOnly {
			t.keyOnly = t.id
		}
		return t
	})
	lexicons = append(lexicons, lx)
	return lx
}

// lexicons lists every lexicon, so a test can hold each one's fast search
// to its full expression.
var lexicons []*lexicon

func compileLexicon(anchor string, phrases []string) *lexTables {
	src := anchor + lexSource(phrases)
	lx := &lexTables{re: sync.OnceValue(func() *regexp.Regexp { return longest(src) }), prefix: anchor == `^`, id: -1, keyOnly: math.MaxInt,
		keys: newKeySet(), stems: newKeySet()}
	for _, p := range phrases {
		f, n := phraseKey(p)
		if n == 0 {
			lx.always = true
		} else {
			lx.keys.add(f[:n])
			for k := 1; k < n; k++ {
				lx.stems.add(f[:k])
			}
		}
		if fullPhrase(f) {
			// phraseRE makes these first characters optional.
			lx.full = true
			continue
		}
		c := f[0]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			// phraseRE opens these with \b: find checks it.
			if lx.byKey == nil {
				lx.byKey = map[int][]phraseGroup{}
			}
			k := keyCode(f[:n])
			lx.byKey[k] = addToGroup(lx.byKey[k], compilePhrase(p))
			continue
		}
		if lx.first == nil {
			lx.first = new(firstProgs)
		}
		if strings.HasPrefix(phraseRE(p), `\b`) {
			lx.first.bounded[c] = true
		}
		lx.first.progs[c] = append(lx.first.progs[c], compilePhrase(p))
	}
	if lx.full {
		lx.first = nil
		lx.byKey = nil
	}
	if lx.first != nil {
		for c, progs := range lx.first.progs {
			if progs != nil {
				lx.firstSet[c/64] |= 1 << (c % 64)
				lx.hasFirst = true
			}
		}
	}
	return lx
}

// MatchString is regexp's, with the cheap test first.
func (lx *lexicon) MatchString(f string) bool { return lx.tables().MatchString(f) }

// FindStringIndex is regexp's, with the cheap test first.
func (lx *lexicon) FindStringIndex(f string) []int { return lx.tables().FindStringIndex(f) }

// FindAllStringIndex is regexp's, with the cheap test first.
func (lx *lexicon) FindAllStringIndex(f string, n int) [][]int {
	return lx.tables().FindAllStringIndex(f, n)
}

// ReplaceAllString is regexp's, with the cheap test first; repl is taken
// literally (callers pass no "$").
func (lx *lexicon) ReplaceAllString(f, repl string) string {
	return lx.tables().ReplaceAllString(f, repl)
}

// isWordByte matches regexp's \b notion of a word character (folded text
// is lower case). A table read, not three range tests: the scanners ask it
// of nearly every byte of a document.
func isWordByte(c byte) bool { return wordBytes[c]&1 != 0 }

// isREWordByte is regexp's \b word character on any text: ASCII letters of
// either case, digits and "_"; a byte of a multi-byte rune is never one.
func isREWordByte(c byte) bool { return wordBytes[c] != 0 }

// wordBytes marks with 1 the bytes isWordByte takes (a-z, 0-9, "_") and
// with 2 those isREWordByte takes besides (A-Z).
var wordBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_':
			t[c] = 1
		case c >= 'A' && c <= 'Z':
			t[c] = 2
		}
	}
	return t
}()

// mayMatch reports whether a phrase could start somewhere in f.
func (lx *lexTables) mayMatch(f string) bool {
	if lx.always {
		return true
	}
	for i := 0; i < len(f); i++ {
		if !isWordByte(f[i]) || i > 0 && isWordByte(f[i-1]) {
			continue
		}
		k := 0
		for n := 0; n < 3 && i+n < len(f) && isWordByte(f[i+n]); n++ {
			k = k*keyBase + wordCode(f[i+n])
			if lx.keys.has(k) {
				return true
			}
		}
	}
	return false
}

// keySet holds word prefixes of one to three bytes as bits: a map lookup
// per word start was a tenth of the extractor's time. The bits are kept
// in blocks of 512 codes, only those that hold a key: a lexicon's few
// dozen keys fill a handful of the 108 blocks, and a flat set was 6.9 KB,
// twice per lexicon, some 1.5 MB of a run's live heap. Made by newKeySet.
type keySet struct {
	dir   [keyBlocks]uint8 // by code/512: the block's index in words/8, 0 (all zero) for an empty one
	words []uint64
}

// keyBase codes a word byte as 1..37; with no zero digit, prefixes of
// different lengths never share a code ("a" is 1, "aa" is 39).
const (
	keyBase = 38
	keyBits = (keyBase*keyBase*keyBase + 63) / 64 * 64
	// keyBlocks is the number of 512-code blocks keySet divides the codes into.
	keyBlocks = (keyBits + 511) / 512
)

func wordCode(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 1
	case c >= '0' && c <= '9':
		return int(c-'0') + 27
	}
	return 37 // "_"
}

// keyCode is the code of a prefix of one to three word bytes.
func keyCode(p string) int {
	k := 0
	for i := 0; i < len(p); i++ {
		k = k*keyBase + wordCode(p[i])
	}
	return k
}

// newKeySet returns an empty set; its block 0 holds the empty blocks' bits
// (none), so has needs no test for a block that is not there.
func newKeySet() keySet { return keySet{words: make([]uint64, 8)} }

func (ks *keySet) add(p string) {
	k := keyCode(p)
	b := ks.dir[k/512]
	if b == 0 {
		b = uint8(len(ks.words) / 8)
		ks.words = append(ks.words, make([]uint64, 8)...)
		ks.dir[k/512] = b
	}
	ks.words[int(b)*8+k/64%8] |= 1 << (k % 64)
}

// has takes k as unsigned for the division: the codes are never negative,
// and a signed one costs a sign fix-up at every test.
func (ks *keySet) has(k int) bool {
	return ks.words[uint(ks.dir[uint(k)/512])*8+uint(k)/64%8]&(1<<(uint(k)%64)) != 0
}

// find returns the leftmost-longest match in f that starts at or after
// from (with f as the whole text, as regexp sees it), via first; only for
// lexicons that are not full.
func (lx *lexTables) find(f string, from int) (int, int, bool) {
	var pos, next [16]int
	for s := from; s < len(f); s++ {
		if lx.prefix && s > 0 {
			break
		}
		c := f[s]
		if isAlnumByte[c] {
			if lx.byKey == nil || s > 0 && isREWordByte(f[s-1]) {
				continue
			}
			best, k := -1, 0
			for n := 0; n < 3 && s+n < len(f) && isWordByte(f[s+n]); n++ {
				k = k*keyBase + wordCode(f[s+n])
				if !lx.keys.has(k) {
					if !lx.stems.has(k) {
						break // no phrase opens with these letters
					}
					continue // the bitsets answer most positions without the map
				}
				groups := lx.byKey[k]
				for i := range groups {
					if g := &groups[i]; hasLitAt(f, s, g.lit) {
						best = max(best, g.longest(f[s:], pos[:0], next[:0]))
					}
				}
			}
			if best >= 0 {
				return s, s + best, true
			}
			// The rest of the word cannot start a phrase: its letters
			// follow a word byte.
			for s+1 < len(f) && isAlnumByte[f[s+1]] {
				s++
			}
			continue
		}
		if lx.firstSet[c/64]&(1<<(c%64)) == 0 {
			continue
		}
		progs := lx.first.progs[c]
		// The phrases' leading \b: word-ness changes between f[s-1] and f[s]
		// (a phrase may start with a non-word rune such as "§").
		if lx.first.bounded[c] && (s > 0 && isREWordByte(f[s-1])) == isREWordByte(c) {
			continue
		}
		best := -1
		for _, prog := range progs {
			if !prog.mayOpen(f[s:]) {
				continue
			}
			best = max(best, prog.longestAt(f[s:], pos[:0], next[:0]))
		}
		if best >= 0 {
			return s, s + best, true
		}
	}
	return 0, 0, false
}

// isAlnumByte marks a-z and 0-9, the bytes that open byKey's phrases.
var isAlnumByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	return t
}()

// findAll is FindAllStringIndex(f, n) via find (matches are never empty).
func (lx *lexTables) findAll(f string, n int) [][]int {
	var out [][]int
	var spans []int
	for pos := 0; n < 0 || len(out) < n; {
		s, e, ok := lx.find(f, pos)
		if !ok {
			break
		}
		var m []int
		m, spans = newSpan(spans, s, e)
		out = append(out, m)
		pos = e
	}
	return out
}

// MatchString is regexp's, with the cheap test first.
func (lx *lexTables) MatchString(f string) bool {
	// find filters by the same first letters as mayMatch, position by
	// position: only the full expression needs the prefilter.
	if lx.full {
		return lx.mayMatch(f) && lx.re().MatchString(f)
	}
	_, _, ok := lx.find(f, 0)
	return ok
}

// FindStringIndex is regexp's, with the cheap test first.
func (lx *lexTables) FindStringIndex(f string) []int {
	if lx.full {
		if !lx.mayMatch(f) {
			return nil
		}
		return lx.re().FindStringIndex(f)
	}
	if s, e, ok := lx.find(f, 0); ok {
		return []int{s, e}
	}
	return nil
}

// FindAllStringIndex is regexp's, with the cheap test first.
func (lx *lexTables) FindAllStringIndex(f string, n int) [][]int {
	if lx.full {
		if !lx.mayMatch(f) {
			return nil
		}
		return lx.re().FindAllStringIndex(f, n)
	}
	return lx.findAll(f, n)
}

// ReplaceAllString is regexp's, with the cheap test first; repl is taken
// literally (callers pass no "$").
func (lx *lexTables) ReplaceAllString(f, repl string) string {
	if !lx.mayMatch(f) {
		return f
	}
	if lx.full || strings.Contains(repl, "$") {
		return lx.re().ReplaceAllString(f, repl)
	}
	ms := lx.findAll(f, -1)
	if ms == nil {
		return f
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(f[last:m[0]])
		b.WriteString(repl)
		last = m[1]
	}
	b.WriteString(f[last:])
	return b.String()
}

func lexSource(phrases []string) string {
	parts := make([]string, 0, len(phrases))
	for _, p := range phrases {
		parts = append(parts, phraseRE(p))
	}
	return `(?:` + strings.Join(parts, `|`) + `)`
}

// foldedRegexp compiles, on first use, a hand-written pattern that is
// matched against folded text, where every "l" has become "i".
// It is guarded (guardedRE): most lines hold none of its words.
func foldedRegexp(src string) func() *guardedRE {
	return mustGuardRE(strings.ReplaceAll(src, "l", "i"))
}

// longest compiles a pattern with leftmost-longest matching.
func longest(src string) *regexp.Regexp {
	re := regexp.MustCompile(src)
	re.Longest()
	return re
}

// firstByteRE is a leftmost-longest alternation of a case-insensitive and a
// case-sensitive list of alternatives, with no assertions (\b, ^), searched
// like lexicon: the full expression runs Go's NFA through every phrase at
// every byte of the text, so matches are instead tried only where some
// alternative can begin, with an anchored alternation of just the
// alternatives whose first character fits that byte. Without assertions a
// match at s of the whole text is a match of "^..." on text[s:], so the
// result is the full expression's. Like a lexicon, it is compiled on first
// use, not at init.
type firstByteRE struct {
	tables func() *firstByteTables // built once, on first use
}

// firstByteTables is a compiled firstByteRE.
type firstByteTables struct {
	*regexp.Regexp                     // the full expression
	byFirst        [256]*regexp.Regexp // by ASCII first byte, lower case for anyCase alternatives
	foldsTo        map[rune]byte       // non-ASCII runes that (?i) folds to an ASCII letter: "ſ", Kelvin "K"

	// prefixes holds, by first byte like byFirst, the literal prefix of
	// each alternative ("gmbh" of `gmbh\s*&...`); find runs byFirst only
	// where one of them is there, since a regexp per letter of a line was
	// most of the supplier search.
	prefixes [256][]litPrefix

	// lits holds, by first byte, the alternatives when every one of that
	// byte is plain text (litPrefix.lit is then the whole alternative):
	// the longest that is there is the match, without the regexp.
	lits [256][]litPrefix

	// nfa holds, by first byte like byFirst, the same alternation run
	// without the regexp on ASCII text (asciiNFA); nil where it cannot.
	nfa [256]*asciiNFA

	// exact holds, by first byte like byFirst, the same alternation run
	// without the regexp on any UTF-8 (exactNFA), built on first use:
	// where nfa stops at a byte above 0x7f ("UG (haftungsbeschränkt)",
	// "Sàrl"), it goes on. Nil where byFirst is; its value nil where the
	// program is too large.
	exact [256]func() *exactNFA

	// skip marks the ASCII bytes no alternative opens with, and dead2
	// holds, by ASCII byte b0 as written, its NFA's dead2 (the bytes after
	// which no match is left): find passes over those places with one
	// table read, where it looked up byFirst, lits and nfa and called
	// longestAt at every letter of a line (the legal-form search was 4 %
	// of a document's work).
	skip  [utf8.RuneSelf]bool
	dead2 [utf8.RuneSelf][2]uint64

	// wideDead[b]: no match starts at ASCII byte b followed by a byte
	// above 0x7f (no alternative is b alone, and none goes on from b with
	// a rune outside ASCII, in any case). dead2 covers ASCII pairs only,
	// so a letter followed by an accented one ("Informática", "Alcalá")
	// went on to the NFA, which stops at the wide byte and asks the
	// regexp: a tenth of the legal-form search on European letterheads.
	wideDead [utf8.RuneSelf]bool
}

// litPrefix is an alternative's literal prefix and whether it is matched
// in any case.
type litPrefix struct {
	lit     string
	anyCase bool
}

// literalPrefix is the literal an alternative must start with (at least
// its first byte): its leading ASCII letters, digits, "&", "/" and escaped
// punctuation, up to the first other syntax or the first one a quantifier
// makes optional.
func literalPrefix(alt string) string {
	var b []byte
	for i := 0; i < len(alt); {
		c, n := alt[i], 1
		switch {
		case c == '\\' && i+1 < len(alt) && strings.IndexByte(".&()/-", alt[i+1]) >= 0:
			c, n = alt[i+1], 2
		case isASCIILetter(c) || c >= '0' && c <= '9' || c == '&' || c == '/':
		default:
			n = 0
		}
		if n == 0 || i+n < len(alt) && strings.IndexByte("?*+{", alt[i+n]) >= 0 {
			break
		}
		b = append(b, c)
		i += n
	}
	if len(b) == 0 {
		return alt[:1]
	}
	return string(b)
}

// mayStartAt reports whether some alternative's literal prefix is at s[i:].
// A byte above 0x7f in the way might be a rune (?i) folds to ASCII: then
// the answer is yes, so the regexp decides.
func (x *firstByteTables) mayStartAt(s string, i int, c byte) bool {
	for _, p := range x.prefixes[c] {
		ok := true
		for k := 0; k < len(p.lit); k++ {
			if i+k >= len(s) {
				ok = false
				break
			}
			b := s[i+k]
			if b >= utf8.RuneSelf {
				return true
			}
			if b != p.lit[k] && !(p.anyCase && lowerByte(b) == lowerByte(p.lit[k])) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func newFirstByteRE(anyCase, exactCase string) *firstByteRE {
	return &firstByteRE{tables: onFirstUse(func() *firstByteTables { return compileFirstByte(anyCase, exactCase) })}
}

func compileFirstByte(anyCase, exactCase string) *firstByteTables {
	x := &firstByteTables{Regexp: longest(`(?i:` + anyCase + `)|(?:` + exactCase + `)`), foldsTo: map[rune]byte{}}
	ci, cs := map[byte][]string{}, map[byte][]string{}
	for _, a := range splitAlternatives(anyCase) {
		c := a[0]
		if !(isASCIILetter(c) || c == '&') {
			panic("firstByteRE: alternative must start with a letter or &: " + a)
		}
		ci[lowerByte(c)] = append(ci[lowerByte(c)], a)
		x.prefixes[lowerByte(c)] = append(x.prefixes[lowerByte(c)], litPrefix{literalPrefix(a), true})
	}
	for _, a := range splitAlternatives(exactCase) {
		if c := a[0]; !(isASCIILetter(c) || c == '&') {
			panic("firstByteRE: alternative must start with a letter or &: " + a)
		}
		cs[lowerByte(a[0])] = append(cs[lowerByte(a[0])], a)
		x.prefixes[lowerByte(a[0])] = append(x.prefixes[lowerByte(a[0])], litPrefix{literalPrefix(a), false})
	}
	for c := 0; c < 256; c++ {
		x.lits[c] = plainAlternatives(ci[byte(c)], cs[byte(c)])
		var parts []string
		if l := ci[byte(c)]; l != nil {
			parts = append(parts, `(?i:`+strings.Join(l, `|`)+`)`)
		}
		if l := cs[byte(c)]; l != nil {
			parts = append(parts, `(?:`+strings.Join(l, `|`)+`)`)
		}
		if parts != nil {
			x.byFirst[c] = longest(`^(?:` + strings.Join(parts, `|`) + `)`)
			if n, ok := newASCIINFA(`(?:` + strings.Join(parts, `|`) + `)`); ok {
				x.nfa[c] = n
			}
			src := `(?:` + strings.Join(parts, `|`) + `)`
			x.exact[c] = onceValue(func() *exactNFA { n, _ := newExactNFA(src); return n })
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf {
				x.foldsTo[r] = byte(c)
			}
		}
	}
	for b := range utf8.RuneSelf {
		c := lowerByte(byte(b))
		x.skip[b] = x.byFirst[c] == nil
		if n := x.nfa[c]; n != nil {
			x.dead2[b] = n.dead2[b]
		}
		x.wideDead[b] = x.skip[b] || !goesOnWide(x.byFirst[c].String(), rune(b))
	}
	return x
}

// plainAlternatives returns the alternatives (anyCase, then exactCase) as
// literals, or nil unless every one is plain text.
func plainAlternatives(anyCase, exactCase []string) []litPrefix {
	var out []litPrefix
	for k, list := range [][]string{anyCase, exactCase} {
		for _, a := range list {
			lit, ok := plainLiteral(a)
			if !ok {
				return nil
			}
			out = append(out, litPrefix{lit: lit, anyCase: k == 0})
		}
	}
	return out
}

// plainLiteral returns the text an alternative matches when it is plain
// text (ASCII letters, digits, "&", "/" and escaped punctuation), with
// ok false otherwise.
func plainLiteral(alt string) (string, bool) {
	var b []byte
	for i := 0; i < len(alt); {
		c := alt[i]
		switch {
		case c == '\\' && i+1 < len(alt) && strings.IndexByte(".&()/-", alt[i+1]) >= 0:
			b = append(b, alt[i+1])
			i += 2
		case isASCIILetter(c) || c >= '0' && c <= '9' || c == '&' || c == '/':
			b = append(b, c)
			i++
		default:
			return "", false
		}
	}
	return string(b), len(b) > 0
}

// longestLit is the end of the longest of lits at s[i:], -1 for none, or
// ok false when a byte above 0x7f is in the way (it may be a rune (?i)
// folds to ASCII: the regexp decides).
func longestLit(lits []litPrefix, s string, i int) (end int, ok bool) {
	end = -1
	for _, p := range lits {
		// A rune (?i) folds to ASCII is longer than its letter: too few
		// bytes left cannot match either. A literal no longer than the
		// match found reads only its ASCII bytes.
		if i+len(p.lit) > len(s) || i+len(p.lit) <= end {
			continue
		}
		match := true
		for k := 0; k < len(p.lit); k++ {
			b := s[i+k]
			if b >= utf8.RuneSelf {
				return 0, false
			}
			if b != p.lit[k] && !(p.anyCase && lowerByte(b) == lowerByte(p.lit[k])) {
				match = false
				break
			}
		}
		if match {
			end = i + len(p.lit)
		}
	}
	return end, true
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// splitAlternatives cuts a pattern at its top-level "|".
func splitAlternatives(src string) []string {
	var out []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, src[start:i])
			start = i + 1
		}
	}
	return append(out, src[start:])
}

// find returns the leftmost-longest match at or after from.
func (x *firstByteTables) find(s string, from int) (int, int, bool) {
	for i := from; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			// What the NFA's longestAt would say first (no match), said
			// here; lits, a subset of the same alternatives, agree. Most
			// bytes (spaces, digits, punctuation) open no form: one table
			// read, before the pair's.
			if x.skip[c] {
				continue
			}
			if i+1 < len(s) {
				if d := s[i+1]; d < utf8.RuneSelf {
					if x.dead2[c][d>>6]&(1<<(d&63)) != 0 {
						continue
					}
				} else if x.wideDead[c] {
					continue
				}
			}
		} else {
			r, _ := utf8.DecodeRuneInString(s[i:])
			k, ok := x.foldsTo[r]
			if !ok {
				continue
			}
			c = k
		}
		if end, ok := x.longestFrom(s, i, c); ok {
			return i, end, true
		}
	}
	return 0, 0, false
}

// find returns the leftmost-longest match at or after from, as
// FindAllStringIndex lists it, without a slice.
func (x *firstByteRE) find(s string, from int) (int, int, bool) { return x.tables().find(s, from) }

// lastMatch returns the last match FindAllStringIndex(s, -1) lists.
func (x *firstByteRE) lastMatch(s string) (int, int, bool) {
	t := x.tables()
	var a, b int
	found := false
	for pos := 0; ; {
		ma, mb, ok := t.find(s, pos)
		if !ok {
			return a, b, found
		}
		a, b, found, pos = ma, mb, true, mb
	}
}

// FindAllStringIndex is regexp's (matches are never empty).
func (x *firstByteRE) FindAllStringIndex(s string, n int) [][]int {
	t := x.tables()
	var out [][]int
	var spans []int
	for pos := 0; n < 0 || len(out) < n; {
		a, b, ok := t.find(s, pos)
		if !ok {
			break
		}
		var m []int
		m, spans = newSpan(spans, a, b)
		out = append(out, m)
		pos = b
	}
	return out
}

// FindAllString is regexp's.
func (x *firstByteRE) FindAllString(s string, n int) []string {
	var out []string
	for _, m := range x.FindAllStringIndex(s, n) {
		out = append(out, s[m[0]:m[1]])
	}
	return out
}
