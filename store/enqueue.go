package store

// IsKeyPrefix reports whether ref looks like a job key or a prefix of one
// long enough to look up (8 to 64 lowercase hex digits), rather than a path.
func IsKeyPrefix(ref string) bool {
	if len(ref) < 8 || len(ref) > 64 {
		return false
	}
	for _, c := range ref {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
