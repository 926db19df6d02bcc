package rules

import "testing"

// TestLookupTablesAreFolded: the word tables looked up with folded text
// hold folded keys. Folding reads an OCR "l" as "i" (and "0", "1", "rn"
// by their neighbours), so an unfolded key such as "del", "total" or
// "simplified tax invoice" was never found.
func TestLookupTablesAreFolded(t *testing.T) {
	t.Parallel()
	tables := map[string]map[string]bool{
		"titleDatePreps": titleDatePreps,
		"taxWords":       taxWords,
		"bareTitles":     bareTitles,
		"rangeGapWords":  rangeGapWords(),
		"v2ExclFolded":   v2ExclFolded(),
	}
	for name, m := range tables {
		for k := range m {
			if f := foldString(k); f != k {
				t.Errorf("%s: key %q is %q folded: the folded text never holds it", name, k, f)
			}
		}
	}
}
