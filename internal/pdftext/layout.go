package pdftext

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// span is one positioned run of text in top-down page space: X grows to the
// right, Y grows downwards and is the run's baseline (or bottom edge).
type span struct {
	X0, X1, Y, Size float64
	S               string
}

// maxBlankLines caps the blank lines kept for a vertical gap: pdftotext keeps
// more, but the rules extractor only needs to see that blocks are apart.
const maxBlankLines = 3

// layoutPage lays a page's spans out on a character grid the way
// `pdftotext -layout` does: one text line per baseline, each run at the
// column its X position gives, blank lines for large vertical gaps. The
// extractor's rules read "label   value" rows and columns, so columns matter
// more than exact spacing.
func layoutPage(spans []span) string {
	ss := make([]span, 0, len(spans))
	for _, s := range spans {
		if !finite(s.X0, s.X1, s.Y, s.Size) || s.Size <= 0 || strings.TrimSpace(s.S) == "" {
			continue
		}
		if s.X1 < s.X0 {
			s.X1 = s.X0
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		return ""
	}
	lines := groupLines(ss)
	pitch := charPitch(ss)
	left := math.Inf(1)
	for _, s := range ss {
		left = math.Min(left, s.X0)
	}

	var out strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			height := 1.2 * math.Max(prev.size, l.size)
			blank := min(int((l.y-prev.y)/height)-1, maxBlankLines)
			for range blank {
				out.WriteByte('\n')
			}
		}
		out.WriteString(l.render(left, pitch))
		out.WriteByte('\n')
	}
	return out.String()
}

// line is the spans sharing one baseline.
type line struct {
	y, size float64
	spans   []span
}

// groupLines sorts spans top to bottom and joins those whose baselines are
// within half a font size: sub- and superscripts stay on their line.
func groupLines(ss []span) []*line {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].Y < ss[j].Y })
	var lines []*line
	for _, s := range ss {
		if n := len(lines); n > 0 {
			l := lines[n-1]
			if math.Abs(s.Y-l.y) < 0.5*math.Min(s.Size, l.size) {
				l.spans = append(l.spans, s)
				continue
			}
		}
		lines = append(lines, &line{y: s.Y, size: s.Size, spans: []span{s}})
	}
	return lines
}

// charPitch is the width of one grid column in points: the median advance of
// a character, so a page set in 8 pt keeps its columns as apart as one in 12 pt.
func charPitch(ss []span) float64 {
	var adv []float64
	for _, s := range ss {
		if n := len([]rune(s.S)); n > 0 && s.X1 > s.X0 {
			adv = append(adv, (s.X1-s.X0)/float64(n))
		}
	}
	if len(adv) == 0 {
		return 5
	}
	sort.Float64s(adv)
	return max(adv[len(adv)/2], 1)
}

// render places the line's spans at their columns. A span that would overlap
// the text before it is pushed right, keeping at least one space when the
// PDF shows a gap, so neighbouring words never run together.
func (l *line) render(left, pitch float64) string {
	sort.SliceStable(l.spans, func(i, j int) bool { return l.spans[i].X0 < l.spans[j].X0 })
	var row []rune
	prevEnd := math.Inf(-1)
	for _, s := range l.spans {
		col := max(int(math.Round((s.X0-left)/pitch)), 0)
		if len(row) > 0 {
			// A small gap (kerning, a font change mid-word) continues the word
			// wherever the grid would put it: wide letters run ahead of the
			// median pitch. A wider gap, or text printed over text, is a word
			// break of at least one space.
			gap := s.X0 - prevEnd
			switch {
			case gap <= 0.15*s.Size && gap >= -0.5*s.Size:
				col = len(row)
			case col <= len(row):
				col = len(row)
				if row[len(row)-1] != ' ' {
					col++
				}
			}
		}
		for len(row) < col {
			row = append(row, ' ')
		}
		for _, r := range s.S {
			switch {
			case r == unicode.ReplacementChar:
				continue // an unmapped glyph: silent beats a wrong character
			case r == 0x02 || r == 0xAD:
				// PDFium marks a hyphen that ends a line as U+0002; the page shows "-".
				r = '-'
			case unicode.IsControl(r) || unicode.IsSpace(r):
				r = ' '
			}
			row = append(row, r)
		}
		prevEnd = math.Max(prevEnd, s.X1)
	}
	return strings.TrimRightFunc(string(row), unicode.IsSpace)
}

func finite(fs ...float64) bool {
	for _, f := range fs {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
