package rules

// A Canadian document writes its numeric dates either way (day first, month
// first, and the official year first all appear), so nothing on it but
// another date decides an ambiguous one. Without this, its GST and "Ltd"
// would read as the signs of a day-first country (localeOrder).

// reCanadaCue names Canada or a tax only Canada levies: harmonised sales
// tax, Quebec's QST/TVQ and TPS, provincial PST.
var reCanadaCue = lexRE("canada", "hst", "gst/hst", "gst / hst", "qst", "tvq", "tps", "pst")

// canadaPostPattern is a Canadian postal code after its province ("Toronto,
// ON M5V 2T6"): letter digit letter, digit letter digit, with the letters
// Canada Post uses.
const canadaPostPattern = `\b(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)\.?,?[ \t]+[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ \t-]?\d[ABCEGHJ-NPRSTV-Z]\d\b`

// reCanadaPost finds canadaPostPattern with a byte scanner (canadaPostAt),
// called as the regexp was: the locale search asked the backtracker of
// every line with a digit, and it was two fifths of that search's work.
var reCanadaPost = func() canadaPostFinder { return canadaPostFinder{} }

// canadaPostFinder answers the regexp methods its callers use.
type canadaPostFinder struct{}

// FindStringIndex is regexp's: the leftmost match, nil when none.
func (canadaPostFinder) FindStringIndex(s string) []int {
	if i, j := canadaPostAt(s); i >= 0 {
		return []int{i, j}
	}
	return nil
}

// MatchString is regexp's.
func (canadaPostFinder) MatchString(s string) bool { return canadaPostIn(s) }

// canadian reports whether the document says it is Canadian: its currency,
// a Canadian tax or Canada by name, or a province with a postal code.
func (d *document) canadian() bool {
	if d.currencyCue() == "CAD" {
		return true
	}
	// Reason: Canada writes numeric dates both ways, so its GST or "Ltd" is
	// no sign of a day-first date.
	return reCanadaCue.MatchString(d.ftext) || canadaPostIn(d.text)
}
