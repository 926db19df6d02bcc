package synth

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// numStyle is how a number is written: group and decimal separators.
type numStyle struct {
	group, dec string
}

var (
	nsEN   = numStyle{",", "."}      // 1,234.56
	nsEU   = numStyle{".", ","}      // 1.234,56
	nsFR   = numStyle{" ", ","}      // 1 234,56
	nsFRnb = numStyle{"\u202f", ","} // 1 234,56 with NARROW NO-BREAK SPACE, as PDF tools emit it
	nsCH   = numStyle{"'", "."}      // 1'234.56
)

// currency is an ISO 4217 code with its minor-unit exponent and symbol.
type currency struct {
	code   string
	exp    int
	symbol string // "" when the code itself is written
}

var currencies = map[string]currency{
	"EUR": {"EUR", 2, "€"},
	"USD": {"USD", 2, "$"},
	"GBP": {"GBP", 2, "£"},
	"CHF": {"CHF", 2, ""},
	"JPY": {"JPY", 0, "¥"},
	"BHD": {"BHD", 3, ""},
}

// curPlacement is where the currency goes next to an amount.
type curPlacement int

const (
	curPrefixSymbol curPlacement = iota // £1,234.56  € 1.234,56
	curSuffixSymbol                     // 1.234,56 €
	curPrefixCode                       // EUR 1,234.56
	curSuffixCode                       // 1.234,56 EUR
	curNone                             // 1.234,56 (currency stated once, in a header or note)
)

// money formats amounts of one document consistently.
type money struct {
	cur   currency
	ns    numStyle
	place curPlacement
}

// number writes minor units as a decimal number in the document's style.
func (m money) number(minor int64) string {
	neg := minor < 0
	if neg {
		minor = -minor
	}
	scale := int64(1)
	for range m.cur.exp {
		scale *= 10
	}
	whole, frac := minor/scale, minor%scale
	s := groupDigits(strconv.FormatInt(whole, 10), m.ns.group)
	if m.cur.exp > 0 {
		s += m.ns.dec + fmt.Sprintf("%0*d", m.cur.exp, frac)
	}
	if neg {
		s = "-" + s
	}
	return s
}

// amount writes minor units with the currency where the document puts it.
func (m money) amount(minor int64) string {
	n := m.number(minor)
	switch m.place {
	case curPrefixSymbol:
		if m.cur.symbol == "€" && m.ns.dec == "," {
			return "€ " + n
		}
		return m.cur.symbol + n
	case curSuffixSymbol:
		return n + " " + m.cur.symbol
	case curPrefixCode:
		return m.cur.code + " " + n
	case curSuffixCode:
		return n + " " + m.cur.code
	}
	return n
}

func groupDigits(d, sep string) string {
	if len(d) <= 3 {
		return d
	}
	var b strings.Builder
	head := len(d) % 3
	if head > 0 {
		b.WriteString(d[:head])
	}
	for i := head; i < len(d); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(d[i : i+3])
	}
	return b.String()
}

// rate writes a tax rate held in tenths of a percent ("19", "8,1", "5.5").
func rate(tenths int, ns numStyle) string {
	if tenths%10 == 0 {
		return strconv.Itoa(tenths / 10)
	}
	return strconv.Itoa(tenths/10) + ns.dec + strconv.Itoa(tenths%10)
}

// parseRate reads "19" or "5,5" into tenths of a percent.
func parseRate(s string) int {
	s = strings.ReplaceAll(s, ",", ".")
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.Atoi(whole)
	f := 0
	if frac != "" {
		f, _ = strconv.Atoi(frac[:1])
	}
	return w*10 + f
}

// dateStyle is one way of writing a calendar date.
type dateStyle int

const (
	dsISO      dateStyle = iota // 2026-03-15
	dsDotDMY                    // 15.03.2026
	dsSlashDMY                  // 15/03/2026
	dsDashDMY                   // 15-03-2026
	dsSlashMDY                  // 03/15/2026
	dsDMonY                     // 15 March 2026
	dsDMonDotY                  // 15. März 2026
	dsDeMonDeY                  // 15 de marzo de 2026
	dsMonDY                     // March 15, 2026
)

func formatDate(t time.Time, ds dateStyle, l *lang) string {
	d, m, y := t.Day(), int(t.Month()), t.Year()
	mon := l.months[m-1]
	switch ds {
	case dsDotDMY:
		return fmt.Sprintf("%02d.%02d.%d", d, m, y)
	case dsSlashDMY:
		return fmt.Sprintf("%02d/%02d/%d", d, m, y)
	case dsDashDMY:
		return fmt.Sprintf("%02d-%02d-%d", d, m, y)
	case dsSlashMDY:
		return fmt.Sprintf("%02d/%02d/%d", m, d, y)
	case dsDMonY:
		return fmt.Sprintf("%d %s %d", d, mon, y)
	case dsDMonDotY:
		return fmt.Sprintf("%d. %s %d", d, mon, y)
	case dsDeMonDeY:
		return fmt.Sprintf("%d de %s de %d", d, mon, y)
	case dsMonDY:
		return fmt.Sprintf("%s %d, %d", mon, d, y)
	}
	return t.Format(time.DateOnly)
}

// width is the display width of s in a monospaced text dump: one column a
// rune (the texts hold no wide characters).
func width(s string) int { return utf8.RuneCountInString(s) }

func padRight(s string, w int) string {
	if n := width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

func center(s string, w int) string {
	n := width(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", (w-n)/2) + s
}

// truncate cuts s to at most w runes.
func truncate(s string, w int) string {
	if width(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w])
}
