package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/invx/invx/store/internal/jobs"
)

// commitTimeout bounds a group commit once it has started. A commit handed
// to the group is carried out whatever the caller's context does, so the
// caller learns the outcome rather than guessing; the bound keeps a lost
// connection from holding the callers forever.
const commitTimeout = time.Minute

// text makes a string from outside (provider messages, webhook errors) fit a
// TEXT column: PostgreSQL rejects NUL bytes and invalid UTF-8, which SQLite
// would store as they are.
func text(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// commitTimes gives a group commit's members their times: the database's
// clock, read once for the whole group inside its transaction (one round
// trip, on the connection the group holds anyway), or, WithCallerClock,
// each commit's own Now where it has one.
func (s *Store) commitTimes(ctx context.Context, tx jobs.Tx, ts []time.Time) ([]int64, error) {
	out := make([]int64, len(ts))
	var db *int64
	for i, t := range ts {
		if s.callerClock && !t.IsZero() {
			out[i] = t.UnixMilli()
			continue
		}
		if db == nil {
			var v int64
			if err := tx.QueryRow(ctx, `SELECT `+clockSQL).Scan(&v); err != nil {
				return nil, fmt.Errorf("read database clock: %w", err)
			}
			db = &v
		}
		out[i] = *db
	}
	return out, nil
}
