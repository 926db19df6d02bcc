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
	var out []idRun
	// The compact forms of a run are prefixes of its last one: the groups
	// are gathered in buf and each prefix is cut from one string, instead
	// of a builder copied at every group (a twentieth of v2's time).
	var buf [maxIDRun + 1]byte
	var ends [maxIDRun + 1]int
	var lens [maxIDRun + 1]int
	for i := 0; i+1 < len(raw); i++ {
		if !(raw[i] >= 'A' && raw[i] <= 'Z' && raw[i+1] >= 'A' && raw[i+1] <= 'Z') {
			continue
		}
		if i > 0 && (isUpperAlnum(raw[i-1]) || raw[i-1] >= 'a' && raw[i-1] <= 'z' || raw[i-1] >= 0x80) {
			continue
		}
		n, size := 0, 0 // groups kept, bytes gathered
		j := i
		for {
			k := j
			for k < len(raw) && isUpperAlnum(raw[k]) {
				k++
			}
			if k == j {
				break
			}
			if size+k-j > maxIDRun {
				break
			}
			size += copy(buf[size:], raw[j:k])
			ends[n], lens[n] = k, size
			n++
			// A group ends at a lower-case letter or other text: "DE123x"
			// is cut at the last full group before it.
			if k < len(raw) && (raw[k] >= 'a' && raw[k] <= 'z' || raw[k] >= 0x80) {
				n--
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
		if n > 0 {
			all := string(buf[:lens[n-1]])
			r := idRun{start: i, ends: make([]int, n), compact: make([]string, n)}
			copy(r.ends, ends[:n])
			for g := range n {
				r.compact[g] = all[:lens[g]]
			}
			out = append(out, r)
			// The next run may start at the next group: "IBAN DE89 ...".
			i = r.ends[0] - 1
		}
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
