package schema

import (
	"strings"
	"sync"
)

// foldDistinctLists records, for each list of keys a version declares,
// whether no two of its names are equal under Unicode case folding (and so
// none repeats). For such a list a key that is one of its names can only
// collide with an earlier occurrence of itself, which lets objectAt find
// duplicates with a bit per field instead of folding the key against every
// key seen before it. Built on first use, not at init; set in init only
// because the lists' checks reach objectAt, and a variable initialised with
// the lists would be an initialisation cycle.
var foldDistinctLists func() map[*field]bool

func init() { foldDistinctLists = sync.OnceValue(buildFoldDistinctLists) }

func buildFoldDistinctLists() map[*field]bool {
	m := map[*field]bool{}
	for _, fields := range [][]field{
		v1Fields, v1FactFields, v1ActionFields,
		v2Fields, v2TaxLineFields, v2LineItemFields, v2EvidenceFields,
	} {
		m[&fields[0]] = foldDistinct(fields)
	}
	return m
}

// foldDistinct reports whether no two names of fields are equal under
// case folding.
func foldDistinct(fields []field) bool {
	for i := range fields {
		for j := i + 1; j < len(fields); j++ {
			if strings.EqualFold(fields[i].name, fields[j].name) {
				return false
			}
		}
	}
	return true
}

// keysFoldDistinct reports whether fields is one of the declared lists and
// its names are fold-distinct, with at most 64 of them (one bit each); any
// other list takes objectAt's general path.
func keysFoldDistinct(fields []field) bool {
	if len(fields) == 0 || len(fields) > 64 {
		return false
	}
	return foldDistinctLists()[&fields[0]]
}
