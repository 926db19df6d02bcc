package rules

import "strings"

// hasCNY is reCNY().MatchString(text) without the regexp: a Chinese
// document's marks (元, 人民币, 中国, or RMB, CNY, China, P.R.C. as whole
// words). The regexp ran over the whole text of every document holding an
// "RC" ("MERCHANT", "PURCHASE"), a fiftieth of the extractor's time.
func hasCNY(text string) bool {
	for _, lit := range []string{"元", "人民币", "中国"} {
		if strings.Contains(text, lit) {
			return true
		}
	}
	for _, w := range []string{"RMB", "CNY", "China"} {
		for from := 0; ; {
			i := strings.Index(text[from:], w)
			if i < 0 {
				break
			}
			i += from
			if !wordAt(text, i-1) && !wordAt(text, i+len(w)) {
				return true
			}
			from = i + 1
		}
	}
	// \bP\.?R\.?C\.?\b: the dots are taken when present; after the C,
	// "." or any non-word byte (or the end) is a boundary either way.
	for from := 0; ; {
		i := strings.IndexByte(text[from:], 'P')
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if wordAt(text, i-1) {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] == '.' {
			j++
		}
		if j >= len(text) || text[j] != 'R' {
			continue
		}
		j++
		if j < len(text) && text[j] == '.' {
			j++
		}
		if j >= len(text) || text[j] != 'C' {
			continue
		}
		if !wordAt(text, j+1) {
			return true
		}
	}
}
