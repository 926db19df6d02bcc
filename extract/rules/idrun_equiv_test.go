package rules

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// idRunsRef is idRuns as first written (a builder per run, copied at
// every group): the reference the faster one is held to.
func idRunsRef(raw string) []idRun {
	var out []idRun
	for i := 0; i+1 < len(raw); i++ {
		if !(raw[i] >= 'A' && raw[i] <= 'Z' && raw[i+1] >= 'A' && raw[i+1] <= 'Z') {
			continue
		}
		if i > 0 && (isUpperAlnum(raw[i-1]) || raw[i-1] >= 'a' && raw[i-1] <= 'z' || raw[i-1] >= 0x80) {
			continue
		}
		r := idRun{start: i}
		var b strings.Builder
		j := i
		for {
			k := j
			for k < len(raw) && isUpperAlnum(raw[k]) {
				k++
			}
			if k == j {
				break
			}
			b.WriteString(raw[j:k])
			if b.Len() > maxIDRun {
				break
			}
			r.ends = append(r.ends, k)
			r.compact = append(r.compact, b.String())
			if k < len(raw) && (raw[k] >= 'a' && raw[k] <= 'z' || raw[k] >= 0x80) {
				r.ends, r.compact = r.ends[:len(r.ends)-1], r.compact[:len(r.compact)-1]
				break
			}
			sep := k
			if sep < len(raw) && (raw[sep] == ' ' || raw[sep] == '.' || raw[sep] == '-') && sep+1 < len(raw) && isUpperAlnum(raw[sep+1]) {
				j = sep + 1
				continue
			}
			if strings.HasPrefix(raw[sep:], "\u00a0") && sep+2 < len(raw) && isUpperAlnum(raw[sep+2]) {
				j = sep + 2
				continue
			}
			break
		}
		if len(r.ends) > 0 {
			out = append(out, r)
			i = r.ends[0] - 1
		}
	}
	return out
}

// idLines adds to lines random ones made of id-like groups, separators and
// the bytes that cut a run, so long runs past maxIDRun are common.
func idLines(lines []string, n int) []string {
	parts := []string{"DE", "CHE", "NL", "GB", "IBAN ", "UID ", "89", "3704", "0044", "0532", "013000", "B01",
		"MWST", " ", "  ", ".", "-", "\u00a0", "x", "é", "A", "9", "123456789012", "ABCDEFGHIJKLMNOP", ":", "/"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range n {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	return lines
}

func TestIDRunsMatchReference(t *testing.T) {
	t.Parallel()
	lines := idLines(equivLines(t, true, 5000), 20000)
	runs := 0
	for _, ln := range lines {
		got, want := idRuns(ln), idRunsRef(ln)
		runs += len(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("idRuns(%q):\n got %+v\nwant %+v", ln, got, want)
		}
	}
	if runs < 1000 {
		t.Fatalf("only %d runs compared; the comparison would prove little", runs)
	}
}

// idRunUsable reports whether a reader could take the run: supplierVATID
// reads runs opening with a VAT prefix, supplierIBAN a compact prefix of
// IBAN length with the check digits third and fourth.
func idRunUsable(r idRun) bool {
	if vatPrefixes[r.compact[0][:2]] {
		return true
	}
	for _, c := range r.compact {
		if len(c) >= 15 && c[2] >= '0' && c[2] <= '9' && c[3] >= '0' && c[3] <= '9' {
			return true
		}
	}
	return false
}

// TestIDRunsOfKeepsUsableRuns holds the document's scan (idsOnly) to the
// full scan less runs no id reader can use: every usable run is kept, in
// order and unchanged.
func TestIDRunsOfKeepsUsableRuns(t *testing.T) {
	t.Parallel()
	lines := idLines(equivLines(t, true, 5000), 20000)
	kept, dropped := 0, 0
	for _, ln := range lines {
		var want []idRun
		for _, r := range idRuns(ln) {
			if idRunUseless(ln, r.start) {
				if idRunUsable(r) {
					t.Fatalf("line %q: run %+v is left out but a reader could take it", ln, r)
				}
				dropped++
				continue
			}
			want = append(want, r)
		}
		sc := idRunScan{idsOnly: true}
		sc.add(ln)
		got := sc.runs()
		kept += len(got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("idsOnly scan of %q:\n got %+v\nwant %+v", ln, got, want)
		}
	}
	if kept < 1000 || dropped < 1000 {
		t.Fatalf("kept %d runs and left out %d; the comparison would prove little", kept, dropped)
	}
}

func TestVATPrefixBits(t *testing.T) {
	t.Parallel()
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			if got, want := vatPrefixBits[a-'A']&(1<<(b-'A')) != 0, vatPrefixes[string([]byte{a, b})]; got != want {
				t.Errorf("vatPrefixBits says %c%c is a prefix: %v; vatPrefixes: %v", a, b, got, want)
			}
		}
	}
}
