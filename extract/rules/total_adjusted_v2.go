package rules

// adjustedLast resolves two totals that disagree when a labelled adjustment
// printed between them accounts for the difference to the minor unit: "TOTAL
// INCL. GST 20.98 / ROUNDING ADJ 0.02 / TOTAL 21.00", or "TOTAL 277.90 /
// DISCOUNT 0.90 / TOTAL 277.00". The exact difference is the cross-check
// that makes the later total the one paid. A rounding makes the earlier
// figure the gross total and the later one the amount due; any other
// adjustment (a discount, a fee) changes the invoice total itself, so the
// later figure is the gross and the amount due is left to the usual rules.
func (s *labelledSet) adjustedLast(ls []labelled) (gross, due *fact[int64]) {
	if len(ls) < 2 {
		return nil, nil
	}
	last := ls[len(ls)-1]
	firstLast := last.line // the first line printing the later figure
	for _, l := range ls {
		if l.minor == last.minor {
			firstLast = min(firstLast, l.line)
		}
	}
	var before *labelled
	for k := range ls {
		l := &ls[k]
		if l.minor == last.minor {
			continue
		}
		if l.line >= firstLast || before != nil && before.minor != l.minor {
			return nil, nil // interleaved, or three different figures
		}
		before = l
	}
	if before == nil {
		return nil, nil
	}
	diff := before.minor - last.minor
	if diff < 0 {
		diff = -diff
	}
	for _, a := range s.all {
		if a.kind != akAdjust || a.line <= before.line || a.line >= firstLast || a.minor != diff {
			continue
		}
		if a.neg && last.minor > before.minor {
			continue // "ROUNDING -0.02" cannot raise the total
		}
		if len(reRounding.FindStringIndex(a.folded)) > 0 {
			return &fact[int64]{V: before.minor, Ev: before.ev}, &fact[int64]{V: last.minor, Ev: last.ev}
		}
		return &fact[int64]{V: last.minor, Ev: last.ev}, nil
	}
	return nil, nil
}
