package rules

// has is lx.MatchString(ln.f.s), answered from the line's keys where no
// phrase of the lexicon opens on the line (mayFind): most lines, for most
// lexicons, without walking the line.
func (ln *line) has(lx *lexicon) bool {
	t := lx.tables()
	if !t.full && !t.mayFind(ln.keysOf()) {
		return false
	}
	return t.MatchString(ln.f.s)
}

// index is lx.FindStringIndex(ln.f.s), with has's shortcut.
func (ln *line) index(lx *lexicon) []int {
	t := lx.tables()
	if !t.full && !t.mayFind(ln.keysOf()) {
		return nil
	}
	return t.FindStringIndex(ln.f.s)
}
