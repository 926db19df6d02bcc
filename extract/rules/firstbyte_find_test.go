package rules

import "testing"

// TestFirstByteFindIsFindAll holds find and lastMatch to the first and last
// of FindAllStringIndex's matches, over the corpus lines and random ones.
func TestFirstByteFindIsFindAll(t *testing.T) {
	t.Parallel()
	matched := 0
	for _, s := range equivLines(t, true, 3000) {
		all := reLegalForm.FindAllStringIndex(s, -1)
		a, b, ok := reLegalForm.find(s, 0)
		la, lb, lok := reLegalForm.lastMatch(s)
		if len(all) == 0 {
			if ok || lok {
				t.Fatalf("%q: find %v, lastMatch %v, FindAllStringIndex none", s, ok, lok)
			}
			continue
		}
		matched++
		if first := all[0]; !ok || a != first[0] || b != first[1] {
			t.Fatalf("%q: find = %d %d %v, want %v", s, a, b, ok, first)
		}
		if last := all[len(all)-1]; !lok || la != last[0] || lb != last[1] {
			t.Fatalf("%q: lastMatch = %d %d %v, want %v", s, la, lb, lok, last)
		}
	}
	if matched < 50 {
		t.Fatalf("only %d lines hold a legal form: the test would prove little", matched)
	}
}
