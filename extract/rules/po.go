package rules

// reOrderConfirmation marks an order label that names the supplier's order
// confirmation or delivery note ("Auftragsbestätigung Nr.", "Confirmation de
// commande n°"), not the buyer's purchase order.
var reOrderConfirmation = foldedRegexp(`(?:confirmation|bestatigung|auftragsbestatigung|bevestiging|conferma|confirmacion|acknowledg(?:e)?ment|delivery|lieferschein|livraison|albaran|pakbon|consegna)\s*(?:of|de|du|des|der|di|del|van)?\s*$`)

// poNumberFact returns the buyer's purchase-order number as written, read
// like the verify_purchase_order action's reference but refusing order
// labels that name the supplier's order confirmation or delivery note.
func (d *document) poNumberFact() *fact[string] {
	h, found := d.findPO(func(ln *line, m [2]int) bool {
		if reOrderConfirmation().MatchString(ln.f.s[:m[0]]) {
			return true
		}
		// "Order confirmation no.": the label runs on into "confirmation".
		rest := ln.f.s[m[1]:]
		return reOrderConfirmationAfter.MatchString(rest)
	})
	if !found || !h.ok || len(h.value) > 64 {
		return nil
	}
	return &fact[string]{V: h.value, Ev: d.refEvidence(h.ref)}
}

var reOrderConfirmationAfter = anchoredRegexp(`^\s*(?:confirmation|bestatigung|bevestiging|conferma|confirmacion|acknowledg)`)
