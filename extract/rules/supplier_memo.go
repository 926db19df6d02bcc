package rules

import "strings"

// The supplier scan reads the same company name many times in one
// document (letterhead, footer, sign-off, bank line), and each reading
// cut the name out of its segment, folded it and ran the noise and pay-to
// searches again, then normalised it and asked it for bank words anew.
// These memos live in one supplierScan, which is built for one document
// and dropped after it: nothing is carried from one document to the next.

// nameKey is what nameBefore's answer depends on: the segment from its
// start s to the legal form's end, where the form starts in it, and
// whether the line is blank before s (byPrefix asks).
type nameKey struct {
	seg     string
	fs      int
	blankTo bool
}

type nameAnswer struct {
	name string
	ok   bool
}

// nameMemo holds nameBefore's answers by nameKey.
type nameMemo map[nameKey]nameAnswer

// nameBefore is nameBefore(raw, fs, fe) without the start, answered from
// the memo when the same segment was read before; m nil reads it anew.
func (m *nameMemo) nameBefore(raw string, fs, fe int) (string, bool) {
	if m == nil {
		n, _, ok := nameBefore(raw, fs, fe)
		return n, ok
	}
	s := segmentStart(raw, fs)
	k := nameKey{seg: raw[s:fe], fs: fs - s, blankTo: strings.TrimSpace(raw[:s]) == ""}
	if a, ok := (*m)[k]; ok {
		return a.name, a.ok
	}
	n, _, ok := nameBeforeFrom(raw, s, fs, fe)
	if *m == nil {
		*m = nameMemo{}
	}
	(*m)[k] = nameAnswer{n, ok}
	return n, ok
}

// candFacts is what add and legalNameScore ask of one spelling of a name.
type candFacts struct {
	key       string // normName
	partyNote bool   // opensPartyNote
	quality   int    // nameQuality
	scoreAdj  int    // legalNameScore's part that reads only the name
	scoreDone bool   // scoreAdj is set
}

// facts returns the memo of name, filled but for scoreAdj.
func (s *supplierScan) facts(name string) *candFacts {
	if f, ok := s.factsOf[name]; ok {
		return f
	}
	if s.factsOf == nil {
		s.factsOf = map[string]*candFacts{}
	}
	f := &candFacts{key: normName(name), partyNote: opensPartyNote(name), quality: nameQuality(name)}
	s.factsOf[name] = f
	return f
}

// legalNameScore is legalNameScore with the name's own part memoised.
func (s *supplierScan) legalNameScore(n string, reg region, sl *supLine) int {
	f := s.facts(n)
	if !f.scoreDone {
		f.scoreAdj, f.scoreDone = legalNameAdj(n), true
	}
	return legalNameScoreWith(f.scoreAdj, reg, sl)
}
