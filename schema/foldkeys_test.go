package schema

import "testing"

// TestFoldDistinct: objectAt's bit per field stands in for folding each key
// against the earlier ones only for lists whose names never fold together;
// every declared list must qualify, or the walk is back on the slow path.
func TestFoldDistinct(t *testing.T) {
	t.Parallel()
	for name, fields := range map[string][]field{
		"v1": v1Fields, "v1 facts": v1FactFields, "v1 actions": v1ActionFields,
		"v2": v2Fields, "v2 tax lines": v2TaxLineFields, "v2 line items": v2LineItemFields, "v2 evidence": v2EvidenceFields,
	} {
		if !keysFoldDistinct(fields) {
			t.Errorf("%s: keysFoldDistinct false for a declared list", name)
		}
	}
	for _, tc := range []struct {
		names []string
		want  bool
	}{
		{[]string{"title", "bullets"}, true},
		{[]string{"title", "Title"}, false},
		{[]string{"a", "b", "a"}, false},
		{[]string{"kind", "\u212aind"}, false},     // KELVIN SIGN folds to k
		{[]string{"status", "\u017ftatus"}, false}, // LONG S folds to s
	} {
		fields := make([]field, len(tc.names))
		for i, n := range tc.names {
			fields[i].name = n
		}
		if got := foldDistinct(fields); got != tc.want {
			t.Errorf("foldDistinct(%q) = %v, want %v", tc.names, got, tc.want)
		}
		if keysFoldDistinct(fields) {
			t.Errorf("keysFoldDistinct(%q): true for a list that is not declared", tc.names)
		}
	}
}
