package driver

import "github.com/invx/invx/store"

// DefaultFindLimit caps FindJobs when FindJobsParams.Limit is 0: enough
// for a person to choose from, small enough for a shell's TAB.
const DefaultFindLimit = 50

// FindLimit is the cap FindJobs applies for a requested limit.
func FindLimit(limit int) int {
	if limit <= 0 {
		return DefaultFindLimit
	}
	return limit
}

// PrefixEnd is the smallest string greater than every string that starts
// with prefix under a bytewise order, so "col >= prefix AND col <
// PrefixEnd(prefix)" is a prefix match that walks an index. Both drivers
// compare the prefixed columns bytewise (SQLite BINARY, PostgreSQL COLLATE
// "C"); U+10FFFF is the largest code point, so nothing valid sorts after it.
func PrefixEnd(prefix string) string { return prefix + "\U0010FFFF" }

// IsHexPrefix reports whether s could start a job key: lowercase hex, up to
// 64 digits (the empty string included).
func IsHexPrefix(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// MergeFound joins the lists of FindJobs's arms: each job once, in the
// order found, at most limit.
func MergeFound(limit int, lists ...[]*store.Job) []*store.Job {
	seen := map[int64]bool{}
	out := []*store.Job{}
	for _, l := range lists {
		for _, j := range l {
			if len(out) == limit {
				return out
			}
			if !seen[j.ID] {
				seen[j.ID] = true
				out = append(out, j)
			}
		}
	}
	return out
}
