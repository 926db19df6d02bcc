package rules

import (
	"testing"

	"github.com/invx/invx/schema"
)

// TestDateOrderDecision: an ambiguous numeric date ("03/04/2025") is read
// only for a reason the document gives (dateOrder), for the issue and the
// due date alike; a lone "$" is no reason.
func TestDateOrderDecision(t *testing.T) {
	t.Parallel()
	issue := func(v schema.InvoiceV2) *string { return v.IssueDate }
	due := func(v schema.InvoiceV2) *string { return v.DueDate }
	runFactCases(t, []factCase{
		{"us date beside it decides", "Acme\nInvoice No: 7\nInvoice date: 03/04/2025\nShipped: 03/14/2025\nTotal $5.00\n", "2025-03-04"},
		{"dollars alone: null", "Acme\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal $5.00\n", ""},
		{"usd code alone: null", "Acme\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal USD 5.00\n", ""},
		{"dollars and a state with zip", "Acme\n12 Main St, Austin, TX 78701\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal $5.00\n", "2025-03-04"},
		{"dollars and a us phone", "Acme\nPhone (512) 555-0142\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal $5.00\n", "2025-03-04"},
		{"dollars, inc and ltd disagree", "Acme Inc.\nBill to: Bolt Ltd\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal $5.00\n", ""},
		{"dollars with gst: day first", "Kedai Maju\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal $5.00 (GST inc)\n", "2025-04-03"},
		{"ringgit: day first", "Kedai Maju\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal RM 5.00\n", "2025-04-03"},
		{"euro beside a us address: day first", "Acme\nAustin, TX 78701\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal 5.00 EUR\n", "2025-04-03"},
		{"singapore dollars: day first", "Acme\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal S$5.00\n", "2025-04-03"},
		{"canadian dollars beside a us address decide nothing", "Acme\nBuffalo, NY 14202\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal CA$5.00\n", ""},
		{"canadian dollars decide nothing", "Acme\nInvoice No: 7\nInvoice date: 03/04/2025\nTotal CA$5.00\n", ""},
		{"a written month needs no order", "Acme\nInvoice No: 7\nInvoice date: March 4, 2025\nTotal $5.00\n", "2025-03-04"},
		{"dollars with gst/hst: canadian, null", "Maple Ridge Supply Ltd\nInvoice No: 7\nInvoice date: 03/04/2025\nGST/HST 0.25\nTotal $5.00\n", ""},
		{"dollars, ltd and a canadian postal code: null", "Maple Ridge Supply Ltd\n40 King St W, Toronto, ON M5H 3Y2\nInvoice No: 7\nInvoice date: 03/04/2025\nGST 0.25\nTotal $5.00\n", ""},
		{"a canadian date beside it still decides", "Maple Ridge Supply Ltd\nInvoice No: 7\nInvoice date: 03/04/2025\nShipped: 03/14/2025\nHST 0.65\nTotal $5.00\n", "2025-03-04"},
	}, issue)
	runFactCases(t, []factCase{
		{"due: us date beside it decides", "Acme\nInvoice No: 7\nInvoice date: 03/14/2025\nDue date: 04/03/2025\nTotal $5.00\n", "2025-04-03"},
		{"due: dollars alone: null", "Acme\nInvoice No: 7\nDue date: 04/03/2025\nTotal $5.00\n", ""},
		{"due: day-first date beside it decides", "Acme\nInvoice No: 7\nInvoice date: 14/02/2025\nDue date: 04/03/2025\nTotal $5.00\n", "2025-03-04"},
	}, due)
}

// TestHasIncForm: "Inc." as a company form is a US cue; tax-inclusive
// "inc" is not.
func TestHasIncForm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Vertex Solutions Inc.", true},
		{"acme inc, 12 main st", true},
		{"total (gst inc): 5.00", false},
		{"prices inc. vat", false},
		{"inc 6% gst", false},
		{"incl. tax", false},
		{"zinc plating", false},
	} {
		if got := hasIncForm(foldString(c.text)); got != c.want {
			t.Errorf("hasIncForm(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
