package rules

// reChange finds what a customer got back.
var reChange = lexRE("change", "change due", "change amt", "your change", "cash change", "rückgeld", "monnaie rendue", "cambio", "resto")

// reCard finds a card payment's tender line on a till slip.
var reCard = lexRE("visa", "visa debit", "visa credit", "mastercard", "master card", "maestro", "amex",
	"american express", "debit card", "credit card", "card payment", "card", "ec-cash", "ec cash", "ec-karte",
	"girocard", "kartenzahlung", "nets", "eftpos", "contactless", "carte bancaire", "carte bleue", "tarjeta",
	"pin", "pinpas", "bancomat", "cb", "cb emv", "carte", "pagamento elettronico", "carta di credito",
	"pagamento con carta", "tarjeta bancaria")

// reSlipTotal finds the total a tender pays.
var reSlipTotal = lexRE(append(append([]string(nil), totalPlainPhrases...), totalGrandPhrases...)...)

// cardPaysTotal reports whether the slip prints one card tender line with
// one amount, and a total line of exactly that amount.
func (d *document) cardPaysTotal() bool {
	paid, ok := d.oneLabelledAmount(reCard, nil, 2, false)
	if !ok || paid == 0 {
		return false
	}
	for _, ln := range d.lines {
		if ln.blank || len(ln.labels(reCard)) > 0 {
			continue
		}
		ls := ln.labels(reSlipTotal)
		if len(ls) == 0 {
			continue
		}
		_, le := ln.f.rawSpan(ls[0][0], ls[0][1])
		for _, t := range usableNums(ln, nil) {
			if t.numStart < le || !looksDecimal(t.text(ln.raw)) {
				continue
			}
			if v, _, ok := parseNumber(t.text(ln.raw), 2, false); ok && v == paid {
				return true
			}
		}
	}
	return false
}

// cashLessChange returns cash minus change when each is printed exactly
// once with one amount.
func (d *document) cashLessChange(exp int, known bool) (int64, bool) {
	cash, okC := d.oneLabelledAmount(reCash, reChange, exp, known)
	change, okG := d.oneLabelledAmount(reChange, nil, exp, known)
	if !okC || !okG || change > cash {
		return 0, false
	}
	return cash - change, true
}

// oneLabelledAmount returns the amount of the one line that carries the
// label and one money amount after it.
func (d *document) oneLabelledAmount(re, not *lexicon, exp int, known bool) (int64, bool) {
	var found []int64
	for _, ln := range d.lines {
		if ln.blank {
			continue
		}
		ls := ln.labels(re)
		if len(ls) == 0 || not != nil && len(ln.labels(not)) > 0 {
			continue // "CASH CHANGE" is the change, not the cash
		}
		_, le := ln.f.rawSpan(ls[0][0], ls[0][1])
		var vals []int64
		for _, t := range usableNums(ln, nil) {
			if t.numStart < le || !looksDecimal(t.text(ln.raw)) {
				continue
			}
			if v, _, ok := parseNumber(t.text(ln.raw), exp, known); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			if v, _ := bareFraction(ln.raw[le:], exp); v >= 0 {
				vals = append(vals, v)
			}
		}
		if len(vals) == 1 {
			found = append(found, vals[0])
		}
	}
	if len(found) != 1 {
		return 0, false
	}
	return found[0], true
}

// paidSubtotal reads a till receipt that prints no total: its last subtotal
// is the amount payable when nothing but tax stands below it and what the
// customer paid, cash minus change, is exactly that figure.
//
// Reason: a till's "NET TOTAL" below its subtotal (the amount after
// discount and service charge, tax included: "NET TOTAL 174.90 / CASH
// 200.00 / CHANGE 25.10") is likewise the amount payable when cash minus
// change is exactly it; a net above the last subtotal, or any other
// total, still leaves it unread.
func (d *document) paidSubtotal(s *labelledSet, exp int) *fact[int64] {
	if len(s.sub)+len(s.net) == 0 || len(s.gross) > 0 || len(s.due) > 0 || s.paid > 0 || s.fee > 0 {
		return nil
	}
	var sub labelled
	if len(s.sub) > 0 {
		sub = s.sub[len(s.sub)-1]
	}
	if len(s.net) > 0 {
		net := s.net[len(s.net)-1]
		if len(s.sub) > 0 && net.line <= sub.line {
			return nil
		}
		sub = net
	}
	for _, a := range s.all {
		if a.line > sub.line && a.kind != akTax && a.kind != akTaxSum && !(a.kind == akAdjust && a.minor == 0) {
			return nil
		}
	}
	pay, ok := d.cashLessChange(exp, true)
	if !ok || pay != sub.minor || pay == 0 {
		return nil
	}
	return &fact[int64]{V: sub.minor, Ev: sub.ev}
}
