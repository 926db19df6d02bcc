package rules

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestDateOrderScannersMatchRegexp holds usContactIn and canadaPostIn, and
// reCanadaPost's FindStringIndex (canadaPostAt), to the regexps they replaced, on every corpus document and line (in three
// cases) and on random texts of state and province codes, postal-code
// letters, digit groups, separators and word bytes beside them.
func TestDateOrderScannersMatchRegexp(t *testing.T) {
	t.Parallel()
	texts := equivLines(t, true, 3000)
	texts = append(texts, raceSample(globTexts(t, "../../fixtures/*/*.txt", "testdata/dev/*.txt",
		"/tmp/devset2/receipts/*.txt", "/tmp/devset2/invoices/*.txt"))...)
	parts := []string{" ", "  ", "\t", "-", ".", ",", "(", ")", "+", "+1", "1", "0", "2", "5", "9", "55", "512", "078",
		"555", "0142", "1234", "78701", "7870", "123456", "x", "_", "é", "A", "Z", "W", "D", "Q", "ON", "QC", "BC",
		"TX", "NY", "CA", "DC", "WY", "OX", "Ltd", "M5V", "2T6", "K1A", "0B1", "W1A", "Z9Z", "D4E"}
	texts = scannerTexts(texts, parts, 43, 100000)
	texts = append(texts, slotTexts(44, 100000, contactSlots)...)
	var us, ca int
	caRE := regexp.MustCompile(canadaPostPattern)
	for _, s := range texts {
		want, got := reUSContact().MatchString(s), usContactIn(s)
		if got != want {
			t.Fatalf("usContactIn(%q) = %v, reUSContact says %v", s, got, want)
		}
		if want {
			us++
		}
		want, got = caRE.MatchString(s), canadaPostIn(s)
		if got != want {
			t.Fatalf("canadaPostIn(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := reCanadaPost().FindStringIndex(s), caRE.FindStringIndex(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("reCanadaPost().FindStringIndex(%q) = %v, the regexp says %v", s, got, want)
		}
		if want {
			ca++
		}
	}
	if us < atLeast(2500) || ca < atLeast(600) {
		t.Fatalf("%d texts with a US contact, %d with a Canadian postal code: the comparison proves little", us, ca)
	}
}

// contactSlots are the patterns' shapes, slot by slot, each slot with
// right and wrong fillings, so that random texts come near a match often
// and match often.
var contactSlots = [][][]string{
	{ // state and ZIP code
		{"", " ", "x", "(", "é", "1", "_", "\n"},
		{"TX", "NY", "DC", "WY", "OX", "tx", "T", "ON"},
		{"", "", ".", ",", ".."},
		{" ", "", "  ", "\t", " \t", "-"},
		{"78701", "7870", "787012", "78701-1234", "78701-123", "7870a", "0"},
		{"", " ", "x", "1", ".", "é", "_", "-", "\n"},
	},
	{ // (512) 555-0142
		{"", " ", "x", "1", "é", "("},
		{"(512)", "(112)", "(51)", "(5123)", "512)", "(512", "(912)"},
		{"", " ", "\t", "  ", "-"},
		{"555", "155", "55", "5555", "955"},
		{"-", ".", " ", "", "/", "\t"},
		{"0142", "014", "01425", "01x2"},
		{"", " ", "x", "1", "_", "é", "-", "\n"},
	},
	{ // 512-555-0142 and +1 512 555 0142
		{"", " ", "x", "1", "é", "_", "(", "+1", "+1 ", "+1-", "+1.", "+1\t", "+2 ", "+ 1 "},
		{"512", "112", "51", "5123", "912"},
		{"-", ".", " ", "", "/", "\t"},
		{"555", "155", "55", "5555", "955"},
		{"-", ".", " ", "", "/", "\t"},
		{"0142", "014", "01425", "01x2"},
		{"", " ", "x", "1", "_", "é", "-", "\n"},
	},
	{ // province and postal code
		{"", " ", "x", "(", "é", "1", "_", "\n"},
		{"ON", "QC", "BC", "YT", "NU", "OX", "on", "O", "TX"},
		{"", "", ".", ",", ".,", ",.", ".."},
		{" ", " ", "  ", "\t", " \t", "", "-"},
		{"M5V", "K1A", "H2X", "Y1A", "D4E", "W1A", "Z9Z", "m5v", "M55"},
		{"", " ", " ", "-", "\t", "  ", "."},
		{"2T6", "0B1", "0W1", "0Z9", "2D6", "2t6", "26", "2T66"},
		{"", " ", "x", "1", ".", "é", "_", "-", "\n"},
	},
}

// slotTexts writes n random texts, each one to three shapes of slots in a
// row, each slot filled with one of its strings.
func slotTexts(seed uint64, n int, shapes [][][]string) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var out []string
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			for _, slot := range shapes[rng.IntN(len(shapes))] {
				b.WriteString(slot[rng.IntN(len(slot))])
			}
		}
		out = append(out, b.String())
	}
	return raceSample(out)
}
