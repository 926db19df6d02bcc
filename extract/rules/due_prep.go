package rules

import "strings"

// duePrepPhrases are reDuePrep's alternatives word by word, spelled as
// the folded text spells them (foldedRegexp reads the pattern's l as i).
var duePrepPhrases = [...][]string{
	{"bis"}, {"bis", "zum"}, {"bis", "spatestens"}, {"by"}, {"before"}, {"untii"},
	{"avant"}, {"avant", "ie"}, {"au", "pius", "tard", "ie"}, {"antes", "de"}, {"antes", "dei"},
	{"hasta", "ei"}, {"voor"}, {"uiteriijk"}, {"entro"}, {"entro", "ii"}, {"on", "or", "before"},
}

// endsWithDuePrep is reDuePrep().MatchString(f) without the regexp: a
// due-date preposition ("bis", "avant le", "on or before") closes f, then
// at most a colon and white space. The regexp, anchored at the end, ran
// over the whole line before every date on it.
func endsWithDuePrep(f string) bool {
	t := strings.TrimRight(f, "\t\n\f\r ") // \s
	t = strings.TrimSuffix(t, ":")
	t = strings.TrimRight(t, "\t\n\f\r ")
	if t == "" || !isREWordByte(t[len(t)-1]) {
		return false
	}
	for _, p := range duePrepPhrases {
		if endsWithWords(t, p) {
			return true
		}
	}
	return false
}

// endsWithWords reports whether t ends with the words, white space
// between them and a word boundary before the first.
func endsWithWords(t string, words []string) bool {
	for k := len(words) - 1; k >= 0; k-- {
		w := words[k]
		if !strings.HasSuffix(t, w) {
			return false
		}
		t = t[:len(t)-len(w)]
		if k == 0 {
			return t == "" || !isREWordByte(t[len(t)-1])
		}
		n := len(t)
		if t = strings.TrimRight(t, "\t\n\f\r "); len(t) == n {
			return false // \s+ between words
		}
	}
	return true
}
