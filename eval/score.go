package eval

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/invx/invx/schema"
)

// The scored fields: the invoice facts of the schema and the set of action
// kinds.
const (
	FieldSupplierName  = "supplier_name"
	FieldInvoiceNumber = "invoice_number"
	FieldCurrency      = "currency"
	FieldTotalMinor    = "total_minor"
	FieldDueDate       = "due_date"
	FieldActionKinds   = "action_kinds"
)

// Fields are the keys an expectation may hold, in report order.
var Fields = []string{FieldSupplierName, FieldInvoiceNumber, FieldCurrency, FieldTotalMinor, FieldDueDate, FieldActionKinds}

// Expect is a document's expectation: one entry per scored field. A value
// is a string (supplier_name, invoice_number, currency, due_date), an int64
// (total_minor), a sorted []string (action_kinds) or nil: the fact must be
// null. A field without an entry is not scored.
type Expect map[string]any

// Mismatch is a scored field whose value differs from the expectation.
type Mismatch struct {
	Field string `json:"field"`
	Want  any    `json:"want"`
	Got   any    `json:"got"`
}

// Scored is one document's score.
type Scored struct {
	// Right holds every scored field, true when the result has it right.
	Right map[string]bool
	// Mismatches are the wrong fields of an admitted result, in Fields
	// order; a document without a result has none (it has an error).
	Mismatches []Mismatch
	// Kinds counts action kinds found (true positives), invented (false
	// positives) and missed (false negatives), when action_kinds is scored.
	Kinds map[string]*KindCount
}

// KindCount is the detection count of one action kind.
type KindCount struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
}

// Values returns the scored values of a validated result, in the types of
// Expect: the v1 fields of a v1 result, the FieldsV2 of an invoice-v2 one
// (read from res.InvoiceV2).
func Values(res *schema.Result) map[string]any {
	if res.InvoiceV2 != nil {
		return valuesV2(res.InvoiceV2)
	}
	f := res.Facts
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	var total any
	if f.TotalMinor != nil {
		total = *f.TotalMinor
	}
	return map[string]any{
		FieldSupplierName:  str(f.SupplierName),
		FieldInvoiceNumber: str(f.InvoiceNumber),
		FieldCurrency:      str(f.Currency),
		FieldTotalMinor:    total,
		FieldDueDate:       str(f.DueDate),
		FieldActionKinds:   actionKinds(res.Actions),
	}
}

// actionKinds are the distinct kinds of the action items, sorted.
func actionKinds(actions []schema.ActionItem) []string {
	kinds := []string{}
	for _, a := range actions {
		if !slices.Contains(kinds, a.Kind) {
			kinds = append(kinds, a.Kind)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// Score compares a validated invoice-summary-v1 result with its
// expectation; see ScoreVersion.
func Score(exp Expect, res *schema.Result) *Scored {
	return ScoreVersion(schema.V1, exp, res)
}

// wantV1 returns the expectation of an invoice-summary-v1 field and
// whether it is scored. v1's total_minor is the amount payable, so an
// expectation that states the amount due (amount_due_minor, or the dev
// set's payable_minor, EN 16931 BT-115) scores the total against it; its
// total_minor may be the gross (BT-112), which a prepayment makes larger.
// An explicit null total_minor beside an amount due says that v1's one
// total is ambiguous on that document (a deposit makes the gross and the
// amount due two figures): either reading, or none, may be an answer, so
// it is not scored.
func wantV1(exp Expect, field string) (any, bool) {
	if field == FieldTotalMinor {
		due, dueOK := exp[FieldAmountDueMinor]
		if want, ok := exp[FieldTotalMinor]; ok && want == nil && dueOK && due != nil {
			return nil, false
		}
		if dueOK && due != nil {
			return due, true
		}
	}
	want, ok := exp[field]
	return want, ok
}

// ScoreVersion compares a result validated under schema version with its
// expectation, on the fields FieldsFor(version) names. res is nil for a
// document whose answer never passed validation: every scored field counts
// as wrong and every expected action kind as missed.
func ScoreVersion(version string, exp Expect, res *schema.Result) *Scored {
	s := &Scored{Right: map[string]bool{}}
	var got map[string]any
	if res != nil {
		got = Values(res)
	}
	v2 := version == schema.V2
	for _, field := range FieldsFor(version) {
		var want any
		var ok, payable bool
		if v2 {
			want, ok, payable = wantV2(exp, field)
		} else {
			want, ok = wantV1(exp, field)
		}
		if !ok {
			continue
		}
		if got == nil {
			s.Right[field] = false
			continue
		}
		g := got[field]
		var right bool
		switch {
		case payable:
			// Either figure the document calls its total (wantV2): the
			// gross total first, else the amount payable, which is also
			// the value a mismatch shows.
			if right = sameV2(field, want, g); !right {
				g = payableV2(got)
				right = sameV2(field, want, g)
			}
		case v2:
			right = sameV2(field, want, g)
		default:
			right = Same(field, want, g)
		}
		s.Right[field] = right
		if !right {
			s.Mismatches = append(s.Mismatches, mismatch(field, want, g))
		}
	}
	if want, ok := exp[FieldActionKinds]; ok {
		wantKinds, _ := want.([]string)
		var gotKinds []string
		if got != nil {
			gotKinds, _ = got[FieldActionKinds].([]string)
		}
		s.Kinds = map[string]*KindCount{}
		count := func(k string) *KindCount {
			if s.Kinds[k] == nil {
				s.Kinds[k] = &KindCount{}
			}
			return s.Kinds[k]
		}
		for _, k := range wantKinds {
			if slices.Contains(gotKinds, k) {
				count(k).TP++
			} else {
				count(k).FN++
			}
		}
		for _, k := range gotKinds {
			if !slices.Contains(wantKinds, k) {
				count(k).FP++
			}
		}
	}
	return s
}

// Same reports whether got is right for want. supplier_name is compared
// after NormSupplier on both sides; every other field exactly (action kinds
// as sets, both sorted). nil is null, and only null matches null.
func Same(field string, want, got any) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	switch field {
	case FieldSupplierName:
		w, ok1 := want.(string)
		g, ok2 := got.(string)
		return ok1 && ok2 && NormSupplier(w) == NormSupplier(g)
	case FieldTotalMinor:
		// An expectation may state a negative total as the document
		// writes it (an e-invoice with a negative grand total); a v1 total
		// is never negative, so such a one is matched by its magnitude. A
		// non-negative expectation is still compared with the sign.
		if w, ok := want.(int64); ok && w < 0 {
			return magnitude(want) == magnitude(got)
		}
	case FieldActionKinds:
		w, ok1 := want.([]string)
		g, ok2 := got.([]string)
		return ok1 && ok2 && slices.Equal(w, g)
	}
	return want == got
}

// legalForms are dropped from the end of a supplier name before names are
// compared, written as NormSupplier leaves them ("S.A." -> "sa", "Sp. z
// o.o." -> "sp z oo", matched joined: "spzoo"). "ACME Ltd." and "Acme
// Limited" are the same supplier for a clerk.
var legalForms = map[string]bool{
	"gmbh": true, "ag": true, "kg": true, "cokg": true, "ek": true, "ug": true, "haftungsbeschränkt": true,
	"se": true, "sa": true, "sl": true, "slp": true, "sau": true, "slu": true, "sas": true, "sarl": true, "sàrl": true,
	"eurl": true, "scea": true, "snc": true, "sca": true, "bv": true, "nv": true, "srl": true, "spa": true,
	"ltd": true, "limited": true, "llc": true, "inc": true, "corp": true, "plc": true, "co": true,
	"oy": true, "ab": true, "aps": true, "as": true, "sro": true, "spzoo": true, "kk": true,
	"wll": true, "bsc": true, "kscc": true, "ltée": true, "ltee": true,
}

// NormSupplier is the form in which supplier names are compared: Unicode
// NFKC, lower case, the punctuation inside abbreviations (. , & - ' ’ /)
// dropped, any other punctuation a space, whitespace collapsed, and
// trailing legal forms (GmbH, S.A., Ltd, Co., Sp. z o.o. ...) removed. Words
// and diacritics are kept as they are: "Muller" is not "Müller".
func NormSupplier(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(norm.NFKC.String(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '.' || r == '&' || r == ',' || r == '-' || r == '\'' || r == '’' || r == '/':
			// "S.A." -> "sa", "Co.KG" -> "cokg"
		default:
			b.WriteRune(' ')
		}
	}
	words := strings.Fields(b.String())
strip:
	for {
		for k := min(3, len(words)-1); k >= 1; k-- {
			if legalForms[strings.Join(words[len(words)-k:], "")] {
				words = words[:len(words)-k]
				continue strip
			}
		}
		return strings.Join(words, " ")
	}
}
