package rules

import (
	"strings"

	"github.com/invx/invx/extract"
)

const (
	maxTitle  = 200
	maxBullet = 300
)

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(extract.Truncate(s, n-len("…"))) + "…"
}

// formatMoney renders minor units with the currency's exponent:
// "EUR 1,234.56", "JPY 120,000", "BHD 1.250".
func formatMoney(minor int64, currency string) string {
	exp, ok := currencyExponent(currency)
	if !ok {
		exp = 2
	}
	digits := itoa64(minor)
	for len(digits) <= exp {
		digits = "0" + digits
	}
	intPart, frac := digits[:len(digits)-exp], digits[len(digits)-exp:]
	var b strings.Builder
	for i := range len(intPart) {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if exp > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	if currency == "" {
		return b.String()
	}
	return currency + " " + b.String()
}

func itoa64(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

var kindText = map[string]string{
	"verify_purchase_order": "verify the purchase order",
	"review_tax":            "review the tax treatment",
	"contact_supplier":      "contact the supplier",
}
