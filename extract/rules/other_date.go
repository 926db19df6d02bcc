package rules

// otherDateBefore is reOtherDate().MatchString(before), by hand: the
// expression runs before every issue-date label and stamp date, and Go's
// regexp cost about 56k instructions a document there.
//
// Every alternative is ASCII lower-case letters (a blank run inside two of
// them) preceded by \b and followed by \s* up to the end. Its last word thus
// ends where the trailing blanks start and, as a letter after a non-word
// byte, is exactly the run of \b word bytes ending there. The two-word
// alternatives joined by \s+ ("of order", "de livraison") hold a one-word
// alternative after a blank, so they match only when it does; "tax\s*point"
// is the one whose last word is no alternative by itself.
func otherDateBefore(before string) bool {
	e := len(before)
	for e > 0 && isRESpace(before[e-1]) {
		e--
	}
	k := e
	for k > 0 && isREWordByte(before[k-1]) {
		k--
	}
	w := before[k:e]
	if otherDateWord(w) {
		return true
	}
	if w != "point" {
		return false
	}
	j := k
	for j > 0 && isRESpace(before[j-1]) {
		j--
	}
	i := j
	for i > 0 && isREWordByte(before[i-1]) {
		i--
	}
	return before[i:j] == "tax"
}

// otherDateWord reports whether w is one of reOtherDate's one-word
// alternatives, folded ("l" is "i"), or "taxpoint" written as one.
func otherDateWord(w string) bool {
	switch w {
	case "deiivery", "ship", "shipping", "dispatch", "due", "order", "service", "suppiy", "taxpoint",
		"performance", "payment", "vaiue", "start", "end", "period", "expiry", "expiration", "print",
		"printed", "birth", "iiefer", "ieistungs", "besteii", "zahiungs", "faiiigkeits", "auftrags",
		"versand", "iivraison", "commande", "echeance", "expedition", "paiement", "prestation", "entrega",
		"pedido", "vencimiento", "pago", "servicio", "ievering", "iever", "bestei", "vervai", "betaai",
		"consegna", "ordine", "scadenza", "pagamento", "spedizione", "ddt":
		return true
	}
	return false
}
