package schema

// checkArithmetic runs the invoice-v2 checks that relate amounts and dates
// to each other and returns every failure, in this fixed order:
//
//  1. sign: on a credit_note every document amount (net, tax, total, amount
//     due, each tax line's base and tax) is <= 0; on an invoice or
//     debit_note each is >= 0. Other types, and line items (a discount line
//     is negative on an invoice), are not constrained;
//  2. net_minor + tax_minor = total_minor, when all three are stated;
//  3. tax lines, when there are any: their tax adds up to tax_minor, and,
//     when every base is stated, their bases add up to net_minor;
//  4. line items, when lines_complete is true: their amounts add up to
//     net_minor, or to total_minor for lines priced gross (till receipts);
//  5. due_date is not before issue_date, except on a reminder: it is dated
//     after the invoice whose due date it recalls.
//
// Every sum may be off by one minor unit per tax line, and by at least one:
// an invoice rounds the tax of each rate, or of each line, on its own. A
// check whose inputs are null is skipped: null is "not stated", and the
// missing fact is the review policy's business (incomplete), not an
// arithmetic error.
//
// Failures are collected rather than returned one at a time so that a
// document committed for review lists all of them. Messages name the keys
// and the tolerance, never the amounts.
func checkArithmetic(d *InvoiceV2) []*ValidationError {
	var out []*ValidationError
	add := func(path, format string, args ...any) {
		out = append(out, verr(CategoryArithmetic, path, format, args...))
	}

	for _, a := range d.documentAmounts() {
		switch {
		case a.v == nil:
		case d.DocumentType == DocCreditNote && *a.v > 0:
			add(a.path, "positive on a credit_note; credit note amounts are negative or zero")
		case (d.DocumentType == DocInvoice || d.DocumentType == DocDebitNote) && *a.v < 0:
			add(a.path, "negative on a %s; use document_type credit_note for a refund", d.DocumentType)
		}
	}

	tol := max(int64(1), int64(len(d.TaxLines)))
	if d.NetMinor != nil && d.TaxMinor != nil && d.TotalMinor != nil &&
		!within(*d.NetMinor+*d.TaxMinor, *d.TotalMinor, tol) {
		add("total_minor", "net_minor + tax_minor differs from total_minor by more than %d minor unit(s)", tol)
	}

	if len(d.TaxLines) > 0 {
		var tax, base int64
		allBases := true
		for _, tl := range d.TaxLines {
			tax += tl.TaxMinor
			if tl.BaseMinor == nil {
				allBases = false
				continue
			}
			base += *tl.BaseMinor
		}
		if d.TaxMinor != nil && !within(tax, *d.TaxMinor, tol) {
			add("tax_lines", "the tax_minor of the tax lines adds up to more than %d minor unit(s) away from tax_minor", tol)
		}
		if allBases && d.NetMinor != nil && !within(base, *d.NetMinor, tol) {
			add("tax_lines", "the base_minor of the tax lines adds up to more than %d minor unit(s) away from net_minor", tol)
		}
	}

	if d.LinesComplete && (d.NetMinor != nil || d.TotalMinor != nil) {
		var sum int64
		for _, li := range d.LineItems {
			// Non-nil: checkCrossFacts refuses lines_complete otherwise.
			sum += *li.AmountMinor
		}
		net := d.NetMinor != nil && within(sum, *d.NetMinor, tol)
		gross := d.TotalMinor != nil && within(sum, *d.TotalMinor, tol)
		if !net && !gross {
			add("line_items", "lines_complete is true but the amount_minor of the lines adds up to neither net_minor nor total_minor (within %d minor unit(s)); set lines_complete false if lines are missing", tol)
		}
	}

	// YYYY-MM-DD compares as text in date order.
	if d.IssueDate != nil && d.DueDate != nil && *d.DueDate < *d.IssueDate && d.DocumentType != DocReminder {
		add("due_date", "before issue_date")
	}
	return out
}

// documentAmounts lists the amounts whose sign the document type decides,
// in document order.
func (d *InvoiceV2) documentAmounts() []pathAmount {
	out := []pathAmount{
		{"net_minor", d.NetMinor}, {"tax_minor", d.TaxMinor},
		{"total_minor", d.TotalMinor}, {"amount_due_minor", d.AmountDueMinor},
	}
	for i := range d.TaxLines {
		tl := &d.TaxLines[i]
		p := index("tax_lines", i)
		out = append(out, pathAmount{p + ".base_minor", tl.BaseMinor}, pathAmount{p + ".tax_minor", &tl.TaxMinor})
	}
	return out
}

// within reports |a-b| <= tol. Amounts are at most 2^53-1 in magnitude and
// at most 500 are summed, so no sum overflows int64.
func within(a, b, tol int64) bool {
	diff := a - b
	return diff <= tol && diff >= -tol
}
