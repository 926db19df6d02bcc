package pdftext

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// run is a span of s at (x, y) in 10 pt type, 5 pt per character.
func run(x, y float64, s string) span {
	return span{X0: x, X1: x + 5*float64(len([]rune(s))), Y: y, Size: 10, S: s}
}

func TestLayoutPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spans []span
		want  string
	}{
		{"columns align across lines",
			[]span{run(50, 100, "Total:"), run(150, 100, "12.00"), run(50, 112, "Tax:"), run(150, 112, "2.28")},
			"Total:              12.00\nTax:                2.28\n"},
		{"content order does not matter",
			[]span{run(150, 112, "2.28"), run(50, 112, "Tax:"), run(150, 100, "12.00"), run(50, 100, "Total:")},
			"Total:              12.00\nTax:                2.28\n"},
		{"baselines within half a size share a line",
			[]span{run(50, 100, "m"), run(55, 103, "2")},
			"m2\n"},
		{"a large gap keeps blank lines, at most three",
			[]span{run(50, 100, "top"), run(50, 136, "mid"), run(50, 900, "end")},
			"top\n\n\nmid\n\n\n\nend\n"},
		{"overlapping runs keep a space between words",
			[]span{run(50, 100, "Invoice"), run(60, 100, "number")},
			"Invoice number\n"},
		{"touching runs join", // a word split into two runs by a font change
			[]span{run(50, 100, "Rech"), run(70, 100, "nung")},
			"Rechnung\n"},
		{"touching runs join even where the grid is behind", // wide letters, narrow median pitch
			[]span{{X0: 50, X1: 80, Y: 100, Size: 10, S: "Glob"}, {X0: 80, X1: 95, Y: 100, Size: 10, S: "al"}, run(50, 112, "narrow"), run(50, 124, "narrow"), run(50, 136, "narrow")},
			"Global\nnarrow\nnarrow\nnarrow\n"},
		{"unmapped glyphs are dropped, line-end hyphens kept",
			[]span{run(50, 100, "Bau-\uFFFD"), run(50, 112, "Abschlags\u0002")},
			"Bau-\nAbschlags-\n"},
		{"broken coordinates and blank runs are skipped",
			[]span{run(math.NaN(), 100, "nan"), run(50, math.Inf(1), "inf"), {X0: 50, Y: 100, S: "nosize"}, run(50, 100, "   "), run(50, 100, "ok")},
			"ok\n"},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, layoutPage(tt.spans)); diff != "" {
				t.Errorf("layoutPage (-want +got):\n%s", diff)
			}
		})
	}
}
