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
	// The compact forms of a run are prefixes of its last one, and all of a
	// line's runs are gathered in one buffer, converted to one string at the
	// end; each run's ends and forms are cut from line-wide slices. An
	// upper-case receipt has a run at nearly every word, and a builder and
	// two slices per run were a tenth of v2's allocations.
	// The scratch slices start in arrays on the stack (ends, which the
	// runs keep, is allocated once the first group is found).
	var (
		bufArr                               [128]byte
		offsArr, lensArr, firstArr, startArr [24]int
	)
	var (
		buf   = bufArr[:0]
		ends  []int
		offs  = offsArr[:0]  // offset in buf of the form ending at the same index of ends
		lens  = lensArr[:0]  // length of that form
		first = firstArr[:0] // index in ends of each run's first group
		start = startArr[:0] // each run's start
	)
	for i := 0; i+1 < len(raw); i++ {
		if !(raw[i] >= 'A' && raw[i] <= 'Z' && raw[i+1] >= 'A' && raw[i+1] <= 'Z') {
			continue
		}
		if i > 0 && (isUpperAlnum(raw[i-1]) || raw[i-1] >= 'a' && raw[i-1] <= 'z' || raw[i-1] >= 0x80) {
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
			if ends == nil {
				ends = make([]int, 0, 24)
			}
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
	if len(first) == 0 {
		return nil
	}
	all := string(buf)
	compact := make([]string, len(ends))
	for g := range ends {
		compact[g] = all[offs[g] : offs[g]+lens[g]]
	}
	out := make([]idRun, len(first))
	for r := range first {
		to := len(ends)
		if r+1 < len(first) {
			to = first[r+1]
		}
		out[r] = idRun{start: start[r], ends: ends[first[r]:to:to], compact: compact[first[r]:to:to]}
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
