package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// numDateTexts are the corpus lines (folded, as findDates sees them, and
// as written), whole texts, and random strings built from the numeric
// date patterns' parts, so separators, spaces, digit runs and word edges
// meet in every order.
func numDateTexts(t *testing.T) []string {
	t.Helper()
	lines := equivLines(t, false, 2000)
	for _, ln := range lines[:len(lines):len(lines)] {
		lines = append(lines, foldString(ln))
	}
	parts := []string{"1", "12", "123", "2026", "20261", "0", "3", "31", "19", ".", "/", "-", " ", "  ", "\t", "\n",
		"a", "A", "_", "x1", "é", "年", ":", "21:13", "no", "12.50", "2026-03-04", "03/04/26", "4 . 5 . 2026", "t", "t1", "2026-11-03t10"}
	return scannerTexts(lines, parts, 11, 60000)
}

// scannerTexts adds to lines, the corpus lines a byte scanner is held to
// its regexp on, n random strings of up to 11 of parts (seeded by seed),
// samples them under -race, and adds whole texts of 300 lines each.
func scannerTexts(lines, parts []string, seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for range n {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	lines = raceSample(lines)
	for i := 0; i+300 <= len(lines); i += 5000 {
		lines = append(lines, strings.Join(lines[i:i+300], "\n"))
	}
	return lines
}

// isoMatches ends each of reDateISO's matches before the time that
// follows its date ("2026-11-03T10:42"): the expression matches the "t"
// and a digit as well, to tell them from a word; the date ends before.
func isoMatches(ms [][]int) [][]int {
	for k, m := range ms {
		if m[12] >= 0 {
			m[1] = m[12]
		}
		ms[k] = m[:12]
	}
	return ms
}

// TestDateScannersMatchRegexp holds each byte scanner to the regexp it
// replaced: the same matches with the same submatch indexes, from every
// start offset for scanNumDate (numDateMatches restarts mid-line).
func TestDateScannersMatchRegexp(t *testing.T) {
	t.Parallel()
	texts := numDateTexts(t)
	var num, iso, slash int
	for _, s := range texts {
		if want, got := isoMatches(reDateISO().FindAllStringSubmatchIndex(s, -1)), scanISODates(s); !equalMatches(want, got) {
			t.Fatalf("scanISODates(%q) = %v, reDateISO says %v", s, got, want)
		} else {
			iso += len(want)
		}
		if want, got := reSlashNum().FindAllStringSubmatchIndex(s, -1), scanSlashNums(s); !equalMatches(want, got) {
			t.Fatalf("scanSlashNums(%q) = %v, reSlashNum says %v", s, got, want)
		} else {
			slash += len(want)
		}
		last := len(s) // every start offset on a line; the start alone on a whole text
		if last > 200 {
			last = 0
		}
		for from := 0; from <= last; from++ {
			want := reDateNum().FindStringSubmatchIndex(s[from:])
			for k := range want {
				if want[k] >= 0 {
					want[k] += from
				}
			}
			got := scanNumDate(s, from)
			if !slices.Equal(want, got) {
				t.Fatalf("scanNumDate(%q, %d) = %v, reDateNum says %v", s, from, got, want)
			}
			if want != nil {
				num++
			}
		}
	}
	for name, n := range map[string]int{"iso": iso, "slash": slash, "num": num} {
		if n < atLeast(2000) {
			t.Fatalf("%s: only %d matches; the comparison would prove little", name, n)
		}
	}
}

func equalMatches(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}
