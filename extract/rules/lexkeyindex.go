package rules

import "strings"

// phraseKey returns a phrase folded and the length (up to three) of the
// word bytes it opens with: its key for keySet.
func phraseKey(p string) (string, int) {
	f := foldString(strings.TrimSpace(p))
	n := 0
	for n < len(f) && n < 3 && isWordByte(f[n]) {
		n++
	}
	return f, n
}

// fullPhrase reports whether a folded phrase makes its lexicon search with
// the full expression: phraseRE makes these first characters optional.
func fullPhrase(f string) bool { return f == "" || strings.ContainsRune(" .-/'", rune(f[0])) }

// lexMask is a set of lexicons by id.
type lexMask [lexMaskWords]uint64

const lexMaskWords = 2

func (m *lexMask) or(o *lexMask) {
	for i := range m {
		m[i] |= o[i]
	}
}

// has takes id as unsigned for the division, as keySet.has does.
func (m *lexMask) has(id int) bool { return m[uint(id)/64]&(1<<(uint(id)%64)) != 0 }

// lexKeyIndex is the line keys turned around: for each key code, the
// lexicons that find by it (mayFind's key test). A line's keys were asked
// of each of some forty lexicons in turn, every test a bit in a different
// 7 KB set (keySet), a twentieth of the extractor's time in cache misses;
// with the index a line ORs one mask per key, once, and mayFind tests a bit.
type lexKeyIndex struct {
	slot  []uint16  // by key code: 0 for no lexicon, else 1 + index in masks
	masks []lexMask // the distinct sets of lexicons
	n     int       // lexicons covered: those registered when it was built
	// code is wordCode of each word byte (a-z, 0-9, "_") and 0 for the
	// other bytes: a word's key codes with no test of which kind of byte.
	code [256]uint8
}

// lexKeys builds the index on first use from the lexicons' phrase lists,
// without compiling them. A lexicon counts for its keys where mayFind
// tests them: not full, and with a phrase opening with a letter or digit
// (byKey); its keys are every phrase's opening word bytes (keys).
var lexKeys = onFirstUse(func() *lexKeyIndex {
	x := &lexKeyIndex{slot: make([]uint16, keyBits), n: len(lexicons)}
	if x.n > lexMaskWords*64 {
		x.n = lexMaskWords * 64 // the rest keep the key-by-key test
	}
	for c := range 256 {
		if isWordByte(byte(c)) {
			x.code[c] = uint8(wordCode(byte(c)))
		}
	}
	byKey := map[int]lexMask{}
	for _, lx := range lexicons[:x.n] {
		var keys []int
		full, alnum := false, false
		for _, p := range lx.list() {
			f, n := phraseKey(p)
			if n > 0 {
				keys = append(keys, keyCode(f[:n]))
			}
			if fullPhrase(f) {
				full = true
			} else if c := f[0]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				alnum = true
			}
		}
		if full || !alnum {
			continue
		}
		for _, k := range keys {
			m := byKey[k]
			m[lx.id/64] |= 1 << (lx.id % 64)
			byKey[k] = m
		}
	}
	ids := map[lexMask]uint16{}
	for k, m := range byKey {
		id, ok := ids[m]
		if !ok {
			x.masks = append(x.masks, m)
			id = uint16(len(x.masks))
			ids[m] = id
		}
		x.slot[k] = id
	}
	return x
})
