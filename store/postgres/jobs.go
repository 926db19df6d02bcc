package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/invx/invx/internal/crashpoint"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/jobs"
)

// commitTimeout bounds a commit once it has started. Like store/sqlite, a
// started commit is carried out whatever the caller's context does, so the
// caller learns the outcome rather than guessing; the bound keeps a lost
// connection from holding the caller forever.
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

// Commit implements store.Store: one transaction per commit (PostgreSQL
// syncs its WAL for concurrent commits together on its own).
func (s *Store) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	// Once started, the commit is carried out whatever ctx does (bounded by
	// commitTimeout): the caller learns the outcome rather than guessing.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	_, now, err := s.clock(ctx, p.Now)
	if err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	var res *store.CommitResult
	err = s.E.Write(ctx, func(tx jobs.Tx) error {
		var err error
		res, err = s.CommitOne(ctx, tx, p, now)
		if err == nil {
			crashpoint.Hit("commit.tx")
		}
		return err
	})
	if errors.Is(err, store.ErrStaleLease) {
		return nil, s.RecordStale(ctx, "commit", p.JobID, p.AttemptID, p.Attempt, now)
	}
	if err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, err)
	}
	return res, nil
}
