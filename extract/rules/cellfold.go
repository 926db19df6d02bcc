package rules

// cellFold is foldString(ln.raw[c.start:c.end]) for a cell of the line,
// cut from the line's folded text where that is the same string, without
// folding (and allocating) again: folding a cell anew was a tenth of the
// extractor's time. fold treats every rune alike wherever it stands except
// for its neighbours: letter-spaced words are joined across the whole raw
// text, "0", "1" and "r" read the runes beside them, and the first rune of
// a cell sees nothing before it. A cell starts after a separator (white
// space, a tab, "|", "¦", "│") or at the line's start and ends before one
// or at the line's end; none of those is a letter or a digit, so only
// these differ from the line's fold:
//   - letter-spaced words, which the cell alone may see differently: the
//     line must hold none that could be (folded.spaced);
//   - the first rune, where "0" or "1" is read as a letter after a letter
//     written just before: after a space, a tab or "|" the line wrote a
//     space or "|", as good as nothing; after another separator it may have
//     written nothing, so only those three are trusted (and a rune above
//     ASCII, whose output may be empty, is not);
//   - the last rune reads the separator after it as the cell reads
//     nothing: neither is a letter, a digit or "n".
func (ln *line) cellFold(c cell) string {
	raw := ln.raw
	if ln.f.spaced || len(ln.f.idx) != len(ln.f.s)+1 || c.start >= c.end || c.end > len(raw) {
		return foldString(raw[c.start:c.end])
	}
	first := raw[c.start]
	if first >= 0x80 || isRESpace(first) {
		return foldString(raw[c.start:c.end])
	}
	if (first == '0' || first == '1') && c.start > 0 {
		if p := raw[c.start-1]; p != ' ' && p != '\t' && p != '|' {
			return foldString(raw[c.start:c.end])
		}
	}
	return ln.f.s[ln.f.foldPos(c.start):ln.f.foldPos(c.end)]
}
