package extract

import (
	"context"
	"errors"
	"unicode/utf8"
)

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence, for
// the bounded messages attempts and errors carry. Adapters share it.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// RunStatus is the status a delivery ends with, from what Work returned and
// whether the run was interrupted: completed, aborted or interrupted.
func RunStatus(ctx context.Context, workErr error) string {
	switch {
	case workErr != nil && !errors.Is(workErr, context.Canceled):
		return "aborted"
	case ctx.Err() != nil:
		return "interrupted"
	default:
		return "completed"
	}
}
