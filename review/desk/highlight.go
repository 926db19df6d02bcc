package desk

import (
	"slices"
	"strings"
)

// segment is a run of the source text covered by the same facts' evidence
// (none for plain text), or a page break.
type segment struct {
	Text      string
	Fields    string // space-separated fact names whose evidence covers it
	PageBreak bool
	Page      int // the page a break starts
}

// highlight cuts text into segments at every evidence boundary, so each
// fact's excerpt can light up on its own even where excerpts overlap
// ("EUR 1.234,56" backs both the currency and the total). A fact whose
// evidence is not in the text (a pruned or changed text) is marked not
// found. Form feeds become page breaks.
func highlight(text string, facts []fact) []segment {
	type span struct {
		from, to int
		field    string
	}
	var spans []span
	cuts := []int{0, len(text)}
	for i := range facts {
		f := &facts[i]
		if f.Evidence == "" {
			continue
		}
		at := strings.Index(text, f.Evidence)
		if at < 0 {
			continue
		}
		f.Found = true
		spans = append(spans, span{at, at + len(f.Evidence), f.Field})
		cuts = append(cuts, at, at+len(f.Evidence))
	}
	for i := 0; i < len(text); i++ {
		if text[i] == '\f' {
			cuts = append(cuts, i, i+1)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []segment
	page := 1
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], cuts[i+1]
		if text[from:to] == "\f" {
			page++
			out = append(out, segment{PageBreak: true, Page: page})
			continue
		}
		var fields []string
		for _, s := range spans {
			if s.from <= from && to <= s.to {
				fields = append(fields, s.field)
			}
		}
		out = append(out, segment{Text: text[from:to], Fields: strings.Join(fields, " ")})
	}
	return out
}
