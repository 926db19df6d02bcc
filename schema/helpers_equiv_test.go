package schema

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The per-string helpers of the validator have fast paths (ASCII first,
// fewer allocations); each is held to its frozen form in reference_test.go
// on every text below and on random texts built from the bytes and runes
// its rules turn on.

// helperTexts returns the fixtures' texts, each line of them, the test
// sources, and random texts of the characters the helpers treat specially.
func helperTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	err := filepath.WalkDir(filepath.Join("..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		texts = append(texts, string(b))
		texts = append(texts, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 1000 {
		t.Fatalf("only %d fixture texts: fixtures/ moved", len(texts))
	}
	texts = append(texts, testSource, testSourceV2)
	texts = append(texts, strings.Split(testSourceV2, "\n")...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		texts = append(texts, randomText(r, r.IntN(40)))
	}
	return texts
}

// textPieces are what random texts are made of: digits, separators of
// numbers and dates, letters of both cases and of month names, white space
// of every kind, controls, bidirectional marks, invalid UTF-8 and
// multi-byte letters that fold to ASCII ones.
var textPieces = []string{
	"0", "1", "2", "3", "5", "9", "00", "12", "2026", "1234", "56",
	".", ",", " ", "-", "/", "'", "\u2019", "\u00a0", "\u202f", "\u2009", "\u2013", ",-",
	"a", "B", "x", "Z", "k", "\u212a", "s", "\u017f", "ß", "é", "É", "İ", "ı",
	"jan", "MAR", "März", "st", "th", "of", "de", "der", "DEL", "Total", "EUR", "€", "$",
	"\n", "\t", "\r", "\v", "\f", "\x00", "\x1f", "\x7f", "\u0085", "\u009f", "\u2028",
	"\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\u200b",
	"\xff", "\xc3", "\xe2\x80",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	return b.String()
}

func TestCheckTextMatchesReference(t *testing.T) {
	t.Parallel()
	for _, s := range helperTexts(t) {
		for _, limit := range []int{maxEvidenceBytes, 10} {
			got, want := checkText("p", s, limit), refcheckText("p", s, limit)
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("checkText(%q, %d) = %v, reference %v", s, limit, got, want)
			}
		}
	}
}

func TestFoldedContainsMatchesReference(t *testing.T) {
	t.Parallel()
	texts := helperTexts(t)
	r := rand.New(rand.NewPCG(3, 4))
	for i, e := range texts {
		if got, want := string(appendFolded([]byte("x"), e)), "x"+reffoldText(e); got != want {
			t.Fatalf("appendFolded(%q) = %q, reference %q", e, got, want)
		}
		// A part of the text, the text with its case and spaces changed,
		// and an unrelated text, as values the evidence may or may not hold.
		a, b := r.IntN(len(e)+1), r.IntN(len(e)+1)
		for _, v := range []string{e[min(a, b):max(a, b)], strings.ToUpper(e), strings.ReplaceAll(e, " ", "\n "), texts[(i*7919)%len(texts)]} {
			if got, want := foldedContains(e, v), strings.Contains(reffoldText(e), reffoldText(v)); got != want {
				t.Fatalf("foldedContains(%q, %q) = %v, reference %v", e, v, got, want)
			}
		}
	}
}

// randomDateText writes a date of iso's parts, or of other numbers, the
// way quotes do: numbers with and without zeros, month names in any case,
// two- and four-digit years, ordinals and fillers, in one of the orders.
func randomDateText(r *rand.Rand, iso string) string {
	if len(iso) != len("2006-01-02") {
		iso = "2026-03-01"
	}
	y, m, d := iso[:4], iso[5:7], iso[8:10]
	if r.IntN(4) == 0 {
		y, m, d = randomText(r, 1), randomText(r, 1), randomText(r, 1)
	}
	names := []string{"Jan", "FEB", "märz", "MÄRZ", "April", "mai", "JUNI", "juil", "Aug", "sept", "OKT", "nov", "Dez", "dic", "mrt", "Mayo"}
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	month := pick(m, strings.TrimLeft(m, "0"), names[r.IntN(len(names))])
	day := pick(d, strings.TrimLeft(d, "0"), d+pick("st", "ND", "th", "ſt", "er"))
	year := pick(y, y[len(y)/2:])
	sep := func() string { return pick(".", "/", "-", " ", ", ", " of ", " de ", "", " DER ", "\u00a0") }
	var date string
	switch r.IntN(4) {
	case 0:
		date = year + sep() + month + sep() + day
	case 1:
		date = day + sep() + month + sep() + year
	case 2:
		date = month + sep() + day + sep() + year
	default:
		date = y + m + d
	}
	return randomText(r, r.IntN(4)) + pick("", " ", "Datum: ", "x") + date + pick("", " ", "1", "a", ".") + randomText(r, r.IntN(4))
}

func TestDateInMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	isos := []string{"2026-03-01", "2026-01-03", "2018-12-25", "2019-01-12", "2000-02-29", "0001-01-01", "9999-12-31", "2026-02-30", "2026-3-01", "20260301", ""}
	for range 200 {
		isos = append(isos, fmt.Sprintf("%04d-%02d-%02d", 1990+r.IntN(50), 1+r.IntN(12), 1+r.IntN(31)))
	}
	texts := helperTexts(t)
	held := 0
	for i, s := range texts {
		iso := isos[i%len(isos)]
		for _, e := range []string{s, randomDateText(r, iso)} {
			got, want := dateIn(e, iso), refdateIn(e, iso)
			if got != want {
				t.Fatalf("dateIn(%q, %q) = %v, reference %v", e, iso, got, want)
			}
			if got {
				held++
			}
		}
	}
	// Both verdicts must be common, or the comparison proves little.
	if held < 2000 || held > 2*len(texts)-2000 {
		t.Fatalf("%d of %d quotes hold their date", held, 2*len(texts))
	}
}

// randomAmountText writes minor the ways amountIn's rules name, and some
// they refuse, inside random text: grouped or not by each separator, a
// decimal point or comma, ",-" for whole amounts, a digit touching it, or
// another amount.
func randomAmountText(r *rand.Rand, minor int64, exp int) string {
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	if r.IntN(5) == 0 {
		minor = r.Int64N(1_000_000_000)
	}
	mag := minor
	if mag < 0 {
		mag = -mag
	}
	digits := fmt.Sprintf("%0*d", exp+1, mag)
	intPart, frac := digits[:len(digits)-exp], digits[len(digits)-exp:]
	if r.IntN(6) == 0 && len(frac) > 0 {
		frac = frac[:len(frac)-1]
	}
	num := refgroup(intPart, refgroupSeps[r.IntN(len(refgroupSeps))])
	if r.IntN(6) == 0 && len(intPart) > 3 {
		num = reflakhGroup(intPart)
	}
	if exp > 0 {
		num += pick(",", ".") + pick(frac, frac, "-", "\u2013", frac+"0")
	}
	return randomText(r, r.IntN(3)) + pick("", " ", "EUR ", "1", ".", "-", "1.", "(") + num + pick("", " ", "1", ",5", ")", "-", " EUR") + randomText(r, r.IntN(3))
}

func TestAmountInMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	texts := helperTexts(t)
	held := 0
	for i, s := range texts {
		minor := []int64{0, 5, 100, 123456, -123456, 100000, 1234567890, 99, 1000}[i%9]
		if i%3 == 0 {
			minor = r.Int64N(10_000_000_000) - 5_000_000_000
		}
		exp := []int{2, 0, 3, 2}[i%4]
		for _, e := range []string{s, randomAmountText(r, minor, exp)} {
			got, want := amountIn(e, minor, exp), refamountIn(e, minor, exp)
			if got != want {
				t.Fatalf("amountIn(%q, %d, %d) = %v, reference %v", e, minor, exp, got, want)
			}
			if got {
				held++
			}
		}
	}
	if held < 2000 || held > 2*len(texts)-2000 {
		t.Fatalf("%d of %d quotes hold their amount", held, 2*len(texts))
	}
}

// TestShortIntegerMatchesParse: where shortInteger answers, integer's
// general path (no float characters, strconv.ParseInt within ±(2^53-1))
// gives the same number.
func TestShortIntegerMatchesParse(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	inputs := []string{"0", "-0", "7", "-7", "007", "999999999999999", "-999999999999999", "1000000000000000", "9007199254740991", "9999999999999999", "", "-", "--1", "1.0", "1e3", "1E3", "+1", " 1", "1 ", "12a", "٣"}
	for range 100000 {
		n := r.Int64N(1<<54) - 1<<53
		s := strconv.FormatInt(n>>r.IntN(54), 10)
		if r.IntN(4) == 0 {
			b := []byte(s)
			b[r.IntN(len(b))] = "0123456789-.eE+ a"[r.IntN(17)]
			s = string(b)
		}
		inputs = append(inputs, s)
	}
	short := 0
	for _, s := range inputs {
		got, ok := shortInteger(s)
		if !ok {
			continue
		}
		short++
		want, err := strconv.ParseInt(s, 10, 64)
		if strings.ContainsAny(s, ".eE") || err != nil || want > maxSafeInteger || want < -maxSafeInteger || got != want {
			t.Fatalf("shortInteger(%q) = %d, true; ParseInt %d, %v", s, got, want, err)
		}
	}
	if short < 50000 {
		t.Fatalf("shortInteger read only %d of %d inputs", short, len(inputs))
	}
}

// TestDigitTests: the byte loops that replaced strings.Trim against a set
// of digits answer as Trim did, and the bullet paths are index's.
func TestDigitTests(t *testing.T) {
	t.Parallel()
	texts := append(helperTexts(t), "", "0", "00", "0123456789", "12a", "a12", "1.5", "-1")
	for _, s := range texts {
		if got, want := isASCIIDigits(s), refisASCIIDigits(s); got != want {
			t.Fatalf("isASCIIDigits(%q) = %v, reference %v", s, got, want)
		}
		if got, want := strings.Count(s, "0") == len(s), strings.Trim(s, "0") == ""; got != want {
			t.Fatalf("all zeros %q: %v, Trim says %v", s, got, want)
		}
	}
	for n := range maxBullets + 2 {
		if got, want := bulletPath("bullets", n), index("bullets", n); got != want {
			t.Fatalf("bulletPath(bullets, %d) = %q, want %q", n, got, want)
		}
	}
}

// TestAlnumContainsMatchesReference holds the IBAN and VAT id containment
// tests, which fold into stack buffers, to the reference's folded strings.
func TestAlnumContainsMatchesReference(t *testing.T) {
	t.Parallel()
	texts := helperTexts(t)
	r := rand.New(rand.NewPCG(5, 6))
	ids := []string{"DE89370400440532013000", "IT01234567890", "CHE123456789MWST", "ATU64417708", "xx", ""}
	for i, e := range texts {
		if got, want := string(appendAlnumUpper([]byte("x"), e)), "x"+refalnumUpper(e); got != want {
			t.Fatalf("appendAlnumUpper(%q) = %q, reference %q", e, got, want)
		}
		a, b := r.IntN(len(e)+1), r.IntN(len(e)+1)
		vs := append([]string{e[min(a, b):max(a, b)], strings.ToLower(e), texts[(i*7919)%len(texts)]}, ids...)
		for _, v := range vs {
			if got, want := alnumContains(e, v, 0, 0), strings.Contains(refalnumUpper(e), refalnumUpper(v)); got != want {
				t.Fatalf("alnumContains(%q, %q) = %v, reference %v", e, v, got, want)
			}
			if got, want := vatIDIn(e, v), refvatIDIn(e, v); got != want {
				t.Fatalf("vatIDIn(%q, %q) = %v, reference %v", e, v, got, want)
			}
		}
	}
	for _, id := range ids[:4] {
		for _, e := range []string{id, "P.IVA " + id[2:], "VAT: " + strings.ToLower(id[:2]) + " " + id[2:]} {
			if got, want := vatIDIn(e, id), refvatIDIn(e, id); got != want {
				t.Fatalf("vatIDIn(%q, %q) = %v, reference %v", e, id, got, want)
			}
		}
	}
}
