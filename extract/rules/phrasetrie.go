package rules

// phraseTrie holds the phrases of a lexicon that share a key ("tot":
// "total", "totaal", "totale", "total due", ...) by the bytes of their
// first literal. find asked each phrase whether the text opens with its
// literal, one HasPrefix per phrase at every candidate word (a quarter of
// the lexicon search); walking the trie reads the text's bytes once and
// reaches exactly the phrases whose literal it opens with.
type phraseTrie struct {
	nodes []trieNode // nodes[0] is the root
}

type trieNode struct {
	kids  []trieEdge   // by byte, few per node: scanned in order
	progs []phraseProg // phrases whose first literal ends here
}

type trieEdge struct {
	b  byte
	to int32
}

// add files prog under its first literal; a phrase without one (none has
// it today) stays at the root, tried at every position as mayOpen did.
func (t *phraseTrie) add(prog phraseProg) {
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, trieNode{})
	}
	n := 0
	if len(prog) > 0 && prog[0].kind == stepLit {
		for i := 0; i < len(prog[0].lit); i++ {
			n = t.child(n, prog[0].lit[i], true)
		}
	}
	t.nodes[n].progs = append(t.nodes[n].progs, prog)
}

// child returns the node under n by byte b, or -1; it makes one when make
// is set.
func (t *phraseTrie) child(n int, b byte, make bool) int {
	for _, e := range t.nodes[n].kids {
		if e.b == b {
			return int(e.to)
		}
	}
	if !make {
		return -1
	}
	t.nodes = append(t.nodes, trieNode{})
	to := len(t.nodes) - 1
	t.nodes[n].kids = append(t.nodes[n].kids, trieEdge{b: b, to: int32(to)})
	return to
}

// longestAt is the longest longestAt of the trie's phrases on t (anchored
// at its start), or -1; pos and next are scratch.
func (t *phraseTrie) longestAt(s string, pos, next []int) int {
	best := -1
	n := 0
	for i := 0; ; i++ {
		for _, prog := range t.nodes[n].progs {
			best = max(best, prog.longestAt(s, pos, next))
		}
		if i >= len(s) {
			break
		}
		if n = t.child(n, s[i], false); n < 0 {
			break
		}
	}
	return best
}
