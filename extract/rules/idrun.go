package rules

import "strings"

// idRun is a run of upper-case letters and digits that opens with two
// letters, printed in groups separated by single spaces, dots or dashes, the
// way VAT ids ("DE 812 445 903", "CHE-123.456.789 MWST") and IBANs ("DE89
// 3704 0044 0532 0130 00") are printed. ends holds the raw end offset of
// every group, and compact the letters and digits up to each of them, so a
// reader can take the longest prefix that is a valid id: the run may go on
// into the next word.
type idRun struct {
	start   int
	ends    []int
	compact []string
}

// maxIDRun bounds a run: the longest IBAN has 34 characters.
const maxIDRun = 40

func isUpperAlnum(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// idRuns lists the id runs of a raw line, one from each group start that
// opens with two letters, so a label printed in capitals before the id
// ("IBAN DE89 ...", "UID CHE-...") does not hide it. A run must not touch a
// letter or digit before it ("XDE123" is no id).
func idRuns(raw string) []idRun {
	var sc idRunScan
	sc.add(raw)
	return sc.runs()
}

// idRunScan gathers the runs of one or more lines in shared slices, turned
// into runs by runs at the end. The compact forms of a run are prefixes of
// its last one, and all runs' forms sit in one buffer, converted to one
// string at the end; each run's ends and forms are cut from scan-wide
// slices. An upper-case receipt has a run at nearly every word: a builder
// and two slices per run, then four allocations per line, were a tenth of
// v2's allocations; the document scans all its lines at once (idRunsOf).
type idRunScan struct {
	buf   []byte
	ends  []int
	offs  []int // offset in buf of the form ending at the same index of ends
	lens  []int // length of that form
	first []int // index in ends of each run's first group
	start []int // each run's start
	// idsOnly leaves out the runs no id reader can use (idRunUseless):
	// on an upper-case receipt nearly every word opens a run, and the
	// document's scan only feeds the VAT id and IBAN finders.
	idsOnly bool
}

// idRunUseless reports, of a run opening at raw[i] (two capitals), that
// neither id reader can take it: its first two letters are no VAT prefix
// (supplierVATID skips the run) and its third character is a letter, where
// an IBAN has a check digit (idChecker.iban refuses every prefix).
func idRunUseless(raw string, i int) bool {
	return i+2 < len(raw) && raw[i+2] >= 'A' && raw[i+2] <= 'Z' && vatPrefixBits[raw[i]-'A']&(1<<(raw[i+1]-'A')) == 0
}

// vatPrefixBits is vatPrefixes as bits, by first letter, of the second
// letters (TestVATPrefixBits holds it to the map): a map look-up per
// upper-case word cost more than the run it saved.
var vatPrefixBits = [26]uint32{
	'A' - 'A': 0x0080000, // AT
	'B' - 'A': 0x0000050, // BE BG
	'C' - 'A': 0x3000080, // CH CY CZ
	'D' - 'A': 0x0000410, // DE DK
	'E' - 'A': 0x0040810, // EE EL ES
	'F' - 'A': 0x0020100, // FI FR
	'G' - 'A': 0x0000002, // GB
	'H' - 'A': 0x0120000, // HR HU
	'I' - 'A': 0x0080010, // IE IT
	'L' - 'A': 0x0380000, // LT LU LV
	'M' - 'A': 0x0080000, // MT
	'N' - 'A': 0x0004800, // NL NO
	'P' - 'A': 0x0080800, // PL PT
	'R' - 'A': 0x0004000, // RO
	'S' - 'A': 0x0000510, // SE SI SK
	'X' - 'A': 0x0000100, // XI
}

// add appends the runs of a raw line.
func (sc *idRunScan) add(raw string) {
	i0 := firstUpperPairStep(raw)
	if i0 < 0 {
		return // no two capitals side by side: no run opens
	}
	buf, ends, offs, lens, first, start := sc.buf, sc.ends, sc.offs, sc.lens, sc.first, sc.start
	for i := i0; i+1 < len(raw); i++ {
		if i+8 <= len(raw) {
			// A run opens at two capitals side by side: eight bytes
			// at a time, past the positions that hold none.
			m := upperLanes(load8(raw, i))
			pair := m & (m >> 8)
			if pair == 0 {
				i += 6 // none opens at i..i+6; the loop steps to i+7
				continue
			}
			i += firstLane(pair)
		}
		if !(raw[i+1] >= 'A' && raw[i+1] <= 'Z') {
			// No run opens at i nor at i+1, whose capital would follow
			// no capital: past both.
			i++
			continue
		}
		if !(raw[i] >= 'A' && raw[i] <= 'Z') {
			continue
		}
		if i > 0 && (isUpperAlnum(raw[i-1]) || raw[i-1] >= 'a' && raw[i-1] <= 'z' || raw[i-1] >= 0x80) {
			continue
		}
		if sc.idsOnly && idRunUseless(raw, i) {
			// The positions inside its first group open no run either
			// (a capital or digit before them): past them, as when the
			// run is taken.
			for i += 2; i+1 < len(raw) && isUpperAlnum(raw[i+1]); i++ {
			}
			continue
		}
		from, base := len(ends), len(buf) // this run's first group; its bytes in buf
		j := i
		for {
			k := j
			for k < len(raw) && isUpperAlnum(raw[k]) {
				k++
			}
			if k == j {
				break
			}
			if len(buf)-base+k-j > maxIDRun {
				break
			}
			buf = append(buf, raw[j:k]...)
			ends, offs, lens = append(ends, k), append(offs, base), append(lens, len(buf)-base)
			// A group ends at a lower-case letter or other text: "DE123x"
			// is cut at the last full group before it.
			if k < len(raw) && (raw[k] >= 'a' && raw[k] <= 'z' || raw[k] >= 0x80) {
				ends, offs, lens = ends[:len(ends)-1], offs[:len(offs)-1], lens[:len(lens)-1]
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
		if len(ends) > from {
			first, start = append(first, from), append(start, i)
			// The next run may start at the next group: "IBAN DE89 ...".
			i = ends[from] - 1
		}
	}
	sc.buf, sc.ends, sc.offs, sc.lens, sc.first, sc.start = buf, ends, offs, lens, first, start
}

// firstUpperPairStep is where add's loop first stops in raw: the first
// block of eight (taken at offsets 0, 7, 14, ..., as add steps) whose
// first seven bytes open a pair of capitals, else the offset add tests
// byte by byte from, when a pair opens there; -1 when raw holds no two
// capitals side by side. Most lines hold none, and skip add's set-up; the
// others start add where it would stop first, in the state it would be in.
func firstUpperPairStep(raw string) int {
	i := 0
	for ; i+8 <= len(raw); i += 7 {
		if m := upperLanes(load8(raw, i)); m&(m>>8) != 0 {
			return i
		}
	}
	for j := i; j+1 < len(raw); j++ {
		if raw[j] >= 'A' && raw[j] <= 'Z' && raw[j+1] >= 'A' && raw[j+1] <= 'Z' {
			return i
		}
	}
	return -1
}

// runs returns the runs added so far, nil when there are none.
func (sc *idRunScan) runs() []idRun {
	if len(sc.first) == 0 {
		return nil
	}
	all := string(sc.buf)
	compact := make([]string, len(sc.ends))
	for g := range sc.ends {
		compact[g] = all[sc.offs[g] : sc.offs[g]+sc.lens[g]]
	}
	out := make([]idRun, len(sc.first))
	for r := range sc.first {
		to := len(sc.ends)
		if r+1 < len(sc.first) {
			to = sc.first[r+1]
		}
		out[r] = idRun{start: sc.start[r], ends: sc.ends[sc.first[r]:to:to], compact: compact[sc.first[r]:to:to]}
	}
	return out
}

// idRuns is idRuns of the line's raw text, found once: the VAT id and the
// IBAN finders both read every line's runs. Callers only read them.
func (ln *line) idRuns() []idRun {
	if !ln.idrDone {
		ln.idr, ln.idrDone = idRuns(ln.raw), true
	}
	return ln.idr
}

// idRunsOf is line i's idRuns, less the runs neither id finder can use
// (idRunUseless). The first call scans every non-blank line of
// the document in one idRunScan (the VAT id and IBAN finders read them
// all), so the document's runs cost four allocations, not four per line.
func (d *document) idRunsOf(i int) []idRun {
	if !d.idrDone {
		d.idrDone = true
		// Sized for most documents' runs: growing six slices from
		// nothing was a twentieth of v2's allocations.
		sc := idRunScan{buf: make([]byte, 0, 1024), ends: make([]int, 0, 128), offs: make([]int, 0, 128),
			lens: make([]int, 0, 128), first: make([]int, 0, 64), start: make([]int, 0, 64), idsOnly: true}
		nRuns := make([]int, len(d.lines)) // len(sc.first) after each line
		for k, ln := range d.lines {
			if !ln.blank && !ln.idrDone {
				sc.add(ln.raw)
			}
			nRuns[k] = len(sc.first)
		}
		all := sc.runs()
		from := 0
		for k, ln := range d.lines {
			if !ln.blank && !ln.idrDone {
				if to := nRuns[k]; to > from {
					ln.idr = all[from:to:to]
				}
				ln.idrDone = true
			}
			from = nRuns[k]
		}
	}
	return d.lines[i].idRuns()
}

// longestValid returns the longest prefix of the run (at a group end) that
// valid accepts, with its raw end, or "" when none does.
func (r idRun) longestValid(valid func(string) bool) (string, int) {
	for k := len(r.compact) - 1; k >= 0; k-- {
		if valid(r.compact[k]) {
			return r.compact[k], r.ends[k]
		}
	}
	return "", 0
}
