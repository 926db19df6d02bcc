package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/invx/invx/internal/crashpoint"
	"github.com/invx/invx/store"
)

// enqueueBatch bounds one enqueue transaction: large enough to amortise the
// fsync, small enough that other processes are not starved of the write lock.
const enqueueBatch = 500

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Commit implements store.Store. Commits from concurrent workers are
// grouped into one transaction (see committer), each under its own
// savepoint, so a lost fence rolls back only its own job.
func (s *Store) Commit(ctx context.Context, p *store.CommitParams) (*store.CommitResult, error) {
	req := &commitReq{p: p, done: make(chan struct{})}
	select {
	case s.commits <- req:
	case <-s.quit:
		return nil, fmt.Errorf("commit job %s: store closed", p.JobKey)
	case <-ctx.Done():
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, ctx.Err())
	}
	// Once handed over, the commit is carried out whatever ctx does: the
	// caller learns the outcome rather than guessing.
	<-req.done
	if errors.Is(req.err, store.ErrStaleLease) {
		return nil, s.RecordStale(context.WithoutCancel(ctx), "commit", p.JobID, p.AttemptID, p.Attempt, ms(p.Now))
	}
	if req.err != nil {
		return nil, fmt.Errorf("commit job %s: %w", p.JobKey, req.err)
	}
	return req.res, nil
}

type commitReq struct {
	p    *store.CommitParams
	res  *store.CommitResult
	err  error
	done chan struct{}
}

// maxGroupCommit bounds how many commits share one transaction and fsync.
const maxGroupCommit = 64

// committer is group commit: it takes whatever commits are waiting (never
// waiting for more, so a lone commit pays no latency) and writes them in one
// transaction, turning N fsyncs into one.
func (s *Store) committer() {
	defer close(s.committerDone)
	for {
		var first *commitReq
		select {
		case first = <-s.commits:
		case <-s.quit:
			return
		}
		batch := []*commitReq{first}
	drain:
		for len(batch) < maxGroupCommit {
			select {
			case r := <-s.commits:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commitBatch(batch)
		for _, r := range batch {
			close(r.done)
		}
	}
}

func (s *Store) commitBatch(batch []*commitReq) {
	ctx := context.Background()
	err := s.tx(ctx, func(tx *execer) error {
		for _, r := range batch {
			if _, err := tx.Exec(ctx, `SAVEPOINT job_commit`); err != nil {
				return err
			}
			r.res, r.err = s.CommitOne(ctx, tx, r.p, ms(r.p.Now))
			if r.err != nil {
				r.res = nil
				if _, err := tx.Exec(ctx, `ROLLBACK TO job_commit`); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `RELEASE job_commit`); err != nil {
				return err
			}
		}
		crashpoint.Hit("commit.tx")
		return nil
	})
	if err != nil {
		for _, r := range batch {
			if r.err == nil {
				r.res, r.err = nil, err
			}
		}
	}
}
