package rules

import "testing"

func TestFindDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		mdy  bool
		want string // "" for none
	}{
		{"2026-03-31", false, "2026-03-31"},
		{"31.03.2026", false, "2026-03-31"},
		{"31/03/2026", false, "2026-03-31"},
		{"31-03-2026", false, "2026-03-31"},
		{"03/31/2026", false, "2026-03-31"}, // month > 12 decides
		{"04/05/2026", false, "2026-05-04"},
		{"04/05/2026", true, "2026-04-05"},
		{"04.05.2026", true, "2026-05-04"}, // dots are always day first
		{"31.03.26", false, "2026-03-31"},
		{"31 March 2026", false, "2026-03-31"},
		{"March 31, 2026", false, "2026-03-31"},
		{"Mar 31 2026", false, "2026-03-31"},
		{"31 Mar 2026", false, "2026-03-31"},
		{"31-Mar-2026", false, "2026-03-31"},
		{"31st March 2026", false, "2026-03-31"},
		{"31. März 2026", false, "2026-03-31"},
		{"31 mars 2026", false, "2026-03-31"},
		{"1er avril 2026", false, "2026-04-01"},
		{"31 de marzo de 2026", false, "2026-03-31"},
		{"31 maart 2026", false, "2026-03-31"},
		{"31 marzo 2026", false, "2026-03-31"},
		{"15 août 2026", false, "2026-08-15"},
		{"1 luglio 2026", false, "2026-07-01"},
		{"2026年3月31日", false, "2026-03-31"},
		{"31.02.2026", false, ""},
		{"29.02.2025", false, ""},
		{"29.02.2028", false, "2028-02-29"},
		{"13/13/2026", false, ""},
		{"1.234,56", false, ""},
		{"Net 30", false, ""},
	}
	for _, tc := range tests {
		hits := findDates(foldString(tc.in), tc.mdy)
		got := ""
		if len(hits) > 0 {
			got = hits[0].date.String()
		}
		if got != tc.want {
			t.Errorf("findDates(%q, mdy=%v) = %q, want %q", tc.in, tc.mdy, got, tc.want)
		}
	}
}

func TestDueDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want string
	}{
		{"english label", "Due date: 31 March 2026\n", "2026-03-31"},
		{"label then next line", "Due Date\n2026-04-30\n", "2026-04-30"},
		{"german", "Fällig am 02.04.2026 ohne Abzug.\n", "2026-04-02"},
		{"zahlungsziel with date", "Zahlungsziel: 15.04.2026\n", "2026-04-15"},
		{"zahlungsziel days", "Zahlungsziel: 30 Tage netto\n", ""},
		{"french", "Date d'échéance : 1er avril 2026\n", "2026-04-01"},
		{"french avant le", "Facture à payer avant le 30 avril 2026.\n", "2026-04-30"},
		{"spanish", "Fecha de vencimiento: 31/03/2026\n", "2026-03-31"},
		{"dutch", "Vervaldatum: 15-04-2026\n", "2026-04-15"},
		{"dutch voor", "Te betalen voor 1 april 2026\n", "2026-04-01"},
		{"italian", "Scadenza: 31 marzo 2026\n", "2026-03-31"},
		{"terms only", "Payment terms: net 30 days from invoice date\n", ""},
		{"within days of a date", "Payment due within 30 days of 01.03.2026\n", ""},
		{"due upon receipt", "Due upon receipt\n", ""},
		{"invalid date", "Due date: 31.02.2026\n", ""},
		{"us document", "INVOICE\nPortland, OR 97201\nTotal $100.00\nDue Date: 04/05/2026\n", "2026-04-05"},
		{"dollars alone decide nothing", "INVOICE\nTotal $100.00\nDue Date: 04/05/2026\n", ""},
		{"table header", "Invoice No.   Invoice Date   Due Date\nINV-1         01.03.2026     31.03.2026\n", "2026-03-31"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Extract(tc.text).Invoice.DueDate
			g := ""
			if got != nil {
				g = *got
			}
			if g != tc.want {
				t.Errorf("due_date = %q, want %q", g, tc.want)
			}
		})
	}
}
