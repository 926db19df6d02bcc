package rules

import (
	"math/bits"
	"unicode/utf8"
)

// asciiDFA is a large asciiNFA with its sets of program counters numbered
// once (subset construction), so a byte costs one table read instead of a
// union over the live threads' eight-word sets: the title filters
// (reTitleInvoice, reTitleReceipt, ...) are asked about every heading cell,
// and stepping their sets was most of document_type's time. It answers
// exactly as longestAtN does: the same sets, read from a table.
type asciiDFA struct {
	// class[b] is byte b's column: bytes that every instruction accepts
	// or refuses alike share one.
	class  [utf8.RuneSelf]uint8
	nclass int
	// trans[state*nclass+class] is the state reached, or -1 when no
	// thread is left. State 0 is the start set.
	trans []int16
	// match and runes say whether a state holds a match instruction and
	// a rune instruction (a thread that could take a byte above 0x7f).
	match, runes []bool
}

// maxDFAStates bounds the construction: past it the program keeps its
// NFA. A table is states * classes int16s: the title filters' together
// take about a hundred kilobytes.
const maxDFAStates = 1024

// newASCIIDFA numbers the sets n reaches from its start set; nil when
// there are more than maxDFAStates.
func newASCIIDFA(n *asciiNFA) *asciiDFA {
	d := &asciiDFA{}
	var reps []byte // one byte of each class
	d.class, reps = byteClasses(func(a, b byte) bool { return n.accept[a] == n.accept[b] })
	d.nclass = len(reps)
	ids := map[pcSet]int16{n.start: 0}
	sets := []pcSet{n.start}
	for i := 0; i < len(sets); i++ {
		cur := sets[i]
		d.match = append(d.match, meetsIn(&cur, &n.match, n.words))
		d.runes = append(d.runes, meetsIn(&cur, &n.runes, n.words))
		for _, b := range reps {
			nxt := n.stepLive(&cur, b)
			if nxt == (pcSet{}) {
				d.trans = append(d.trans, -1)
				continue
			}
			id, ok := ids[nxt]
			if !ok {
				if len(sets) == maxDFAStates {
					return nil
				}
				id = int16(len(sets))
				ids[nxt] = id
				sets = append(sets, nxt)
			}
			d.trans = append(d.trans, id)
		}
	}
	return d
}

// stepLive is step over the threads of cur that accept b only (the
// construction steps every set over every class).
func (n *asciiNFA) stepLive(cur *pcSet, b byte) (nxt pcSet) {
	acc := &n.accept[b]
	for w := 0; w < n.words; w++ {
		for word := cur[w] & acc[w]; word != 0; word &= word - 1 {
			next := &n.next[w*64+bits.TrailingZeros64(word)]
			for k := 0; k < n.words; k++ {
				nxt[k] |= next[k]
			}
		}
	}
	return nxt
}

// longestAt is asciiNFA.longestAtN read from the table.
func (d *asciiDFA) longestAt(s string) (end int, ok bool) {
	end = -1
	st := int16(0)
	for p := 0; ; p++ {
		if d.match[st] {
			end = p
		}
		if p == len(s) {
			return end, true
		}
		b := s[p]
		if b >= utf8.RuneSelf {
			// A thread still reading runes could take this one.
			if d.runes[st] {
				return 0, false
			}
			return end, true
		}
		st = d.trans[int(st)*d.nclass+int(d.class[b])]
		if st < 0 {
			return end, true
		}
	}
}

// byteClasses numbers the ASCII bytes by class, same telling two bytes of
// one class: a DFA's column per byte, and one byte of each column.
func byteClasses(same func(a, b byte) bool) (class [utf8.RuneSelf]uint8, reps []byte) {
	for b := range byte(utf8.RuneSelf) {
		k := -1
		for c, r := range reps {
			if same(r, b) {
				k = c
				break
			}
		}
		if k < 0 {
			k = len(reps)
			reps = append(reps, b)
		}
		class[b] = uint8(k)
	}
	return class, reps
}
