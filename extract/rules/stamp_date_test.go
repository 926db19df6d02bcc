package rules

import (
	"testing"

	"github.com/invx/invx/schema"
)

// TestStampDate covers the unlabelled issue date: a till slip's time stamp
// or the document's one date, never a date the line names as another.
func TestStampDate(t *testing.T) {
	t.Parallel()
	issue := func(v schema.InvoiceV2) *string { return v.IssueDate }
	cases := []factCase{
		{"time stamp", "KEDAI MAJU SDN BHD\n19/10/2018 20:49:59 #01\nTOTAL RM 5.00\n", "2018-10-19"},
		{"dash two-digit year beside a time", "KEDAI MAJU SDN BHD\n 12-01-19 21:13 SH01 T4 R0001\nTOTAL RM 5.00\n", "2019-01-12"},
		{"dash two-digit year without a time is a code", "KEDAI MAJU SDN BHD\nITEM 12-01-19\nTOTAL RM 5.00\n", ""},
		{"us receipt month first", "CORNER DELI\nAUSTIN, TX 78701\n03/04/2024 10:22\nTOTAL $5.00\n", "2024-03-04"},
		{"dollars alone: null", "CORNER DELI\n03/04/2024 10:22\nTOTAL $5.00\n", ""},
		{"no locale: null", "CORNER DELI\n03/04/2024 10:22\nTOTAL 5.00\n", ""},
		{"gst inc is no us cue", "KEDAI MAJU SDN BHD\n03/04/2024 10:22\nTOTAL DUE (GST INC): 5.00\n", "2024-04-03"},
		{"malay week day", "KEDAI MAJU\nRABU, 03-04-2024 TIME : 10:22\nTOTAL 5.00\n", "2024-04-03"},
		{"day above twelve needs no locale", "CORNER DELI\n23/04/2024 10:22\nTOTAL 5.00\n", "2024-04-23"},
		{"two different time stamps", "KEDAI MAJU SDN BHD\n19/10/2018 20:49\nTOTAL RM 5.00\n21/10/2018 09:12\n", ""},
		{"print stamp is not the date", "Acme Ltd\nInvoice\nPrinted: 06/05/2024 10:22\nTotal 12.00 GBP\n", ""},
		{"delivery note's date", "Muster GmbH\nRechnung\nLieferschein Nr. 8408 vom 10.04.2026\nSumme 10,00 €\n", ""},
		{"a period", "Acme Ltd\nInvoice 2024-77\n01/03/2024 - 31/03/2024\nTotal 12.00 EUR\n", ""},
		{"a period joined by al", "Ebro S.L.\nFactura 2024-77\n01/03/2024 al 31/03/2024\nTotal 12,00 EUR\n", ""},
		{"a period joined by till", "Acme Ltd\nInvoice 2024-77\n01/03/2024 till 31/03/2024\nTotal 12.00 EUR\n", ""},
		{"an item line's date", "Muster GmbH\nRechnung\n1  02.03.2026  Transport   640,00 €\n", ""},
		{"lone date beside a validity", "KEDAI MAJU SDN BHD\n07/06/2018   NO : CS-1\nTOTAL RM 5.00\nVALID UNTIL : 30/09/21\n", "2018-06-07"},
		{"a number that looks like a date", "Faktura nr 2024/05/17\nRazem 10,00 zł\n", ""},
		{"a label wins", "KEDAI MAJU SDN BHD\nDATE : 20/10/2018\n19/10/2018 20:49:59\nTOTAL RM 5.00\n", "2018-10-20"},
	}
	runFactCases(t, cases, issue)
}

// TestLabelledDateOrder: a labelled numeric date whose day and month could
// be swapped is read only when the document says which comes first.
func TestLabelledDateOrder(t *testing.T) {
	t.Parallel()
	issue := func(v schema.InvoiceV2) *string { return v.IssueDate }
	due := func(v schema.InvoiceV2) *string { return v.DueDate }
	runFactCases(t, []factCase{
		{"no locale: null", "Acme\nInvoice No: 7\nInvoice date: 03/04/2026\n", ""},
		{"pound sterling: day first", "Acme Ltd\nInvoice No: 7\nInvoice date: 03/04/2026\nTotal £5.00\n", "2026-04-03"},
		{"us dollars: month first", "Acme Inc\nInvoice No: 7\nInvoice date: 03/04/2026\nTotal $5.00\n", "2026-03-04"},
		{"another date decides", "Acme\nInvoice No: 7\nInvoice date: 03/04/2026\nDelivered: 25/03/2026\n", "2026-04-03"},
		{"dots are day first", "Acme\nInvoice No: 7\nInvoice date: 03.04.2026\n", "2026-04-03"},
	}, issue)
	runFactCases(t, []factCase{
		{"due, no locale: null", "Acme\nInvoice No: 7\nDue date: 03/04/2026\n", ""},
		{"due, euro", "Acme\nInvoice No: 7\nDue date: 03/04/2026\nTotal 5,00 €\n", "2026-04-03"},
	}, due)
}
