package rules

import "strings"

// pastHeaderNote returns the line after line i when line i is a note on
// the name above it, a labelled value ("LICENCE NO: KPDN/2018/004512",
// "BRANCH: TAMAN MELATI") or a remark in parentheses ("(FORMERLY KNOWN AS
// ...)"): when a registration line follows, the name still owns that
// number (the caller asks). Otherwise it returns i.
//
// Reason: a licence, branch or former-name line printed between a name and
// its registration number does not make the number another company's.
func (d *document) pastHeaderNote(i int) int {
	if i < 0 || i+1 >= len(d.lines) || d.lines[i].blank || d.regCue(i) || !headerNote(d.lines[i].raw) {
		return i
	}
	return i + 1
}

// headerNote reports a line that only annotates the line above: wholly in
// parentheses, or a short label of letters before a colon, and naming no
// company of its own (a legal form makes it a name, "OWNED BY: ACME SDN
// BHD").
func headerNote(raw string) bool {
	t := strings.TrimSpace(raw)
	if t == "" || hasLegalForm(t) {
		return false
	}
	if t[0] == '(' && t[len(t)-1] == ')' && strings.Count(t, "(") == 1 {
		return true
	}
	k := strings.IndexByte(t, ':')
	if k <= 0 || k > 24 || strings.TrimSpace(t[k+1:]) == "" {
		return false
	}
	for _, r := range t[:k] {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == ' ' || r == '.') {
			return false
		}
	}
	return true
}
