package rules

// netAsTotal reads a till's "NET TOTAL" (Commonwealth "nett": the final
// figure, not the amount before tax) as the gross total when it is exactly
// what the subtotal above it, the taxes and the adjustments printed between
// them add up to: "SUBTOTAL 179.00 / GST 10.74 / ROUNDING 0.01 / NET TOTAL
// 189.75". Without a tax between them the label keeps its usual meaning.
// The net is the subtotal only when nothing but tax stands between them.
func (s *labelledSet) netAsTotal() (gross, net *fact[int64]) {
	if len(s.net) == 0 || len(s.sub) == 0 {
		return nil, nil
	}
	n := s.net[len(s.net)-1]
	var sub *labelled
	for k := range s.sub {
		if s.sub[k].line < n.line {
			sub = &s.sub[k]
		}
	}
	if sub == nil {
		return nil, nil
	}
	var taxes int64
	var adjusts []int64
	nTax := 0
	for _, a := range s.all {
		if a.line <= sub.line || a.line >= n.line {
			continue
		}
		switch a.kind {
		case akTax, akTaxSum:
			taxes += a.minor
			nTax++
		case akAdjust:
			if a.minor != 0 {
				adjusts = append(adjusts, a.minor)
			}
		case akNet, akSub, akGross, akDue, akPaid, akFee:
			return nil, nil // another figure between them: not one sum
		}
	}
	if nTax == 0 || len(adjusts) > 4 {
		return nil, nil
	}
	// Adjustments print without a reliable sign (a discount, a rounding
	// either way): any signs that make the sum exact will do.
	for mask := 0; mask < 1<<len(adjusts); mask++ {
		sum := sub.minor + taxes
		for i, v := range adjusts {
			if mask&(1<<i) != 0 {
				sum -= v
			} else {
				sum += v
			}
		}
		if sum != n.minor {
			continue
		}
		gross = &fact[int64]{V: n.minor, Ev: n.ev}
		if len(adjusts) == 0 {
			net = &fact[int64]{V: sub.minor, Ev: sub.ev}
		}
		return gross, net
	}
	return nil, nil
}
