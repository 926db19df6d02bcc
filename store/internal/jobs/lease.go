package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
)

// leaseColumns are the jobs columns a store.Lease is read from, in the order
// of leaseDest; alias prefixes each ("j." in a join, "" in RETURNING).
func leaseColumns(alias string) string {
	a, t := alias, alias
	if t == "" {
		t = "jobs." // RETURNING: the subquery names the row's table
	}
	return a + `id, ` + a + `tenant, ` + a + `job_key, ` + a + `schema_version, ` + a + `source_path, coalesce(` + a + `source_text, ''), ` +
		`(SELECT x.zst FROM job_texts x WHERE x.job_id = ` + t + `id), ` +
		a + `lease_token, ` + a + `attempts, ` + a + `budget_base, ` + a + `lease_recoveries - ` + a + `recovery_base`
}

// leaseDest are the scan targets of leaseColumns; zst takes the compressed
// text, which unpackLease unpacks.
func leaseDest(l *store.Lease, zst *[]byte) []any {
	return []any{&l.JobID, &l.Tenant, keyOut(&l.JobKey), &l.SchemaVersion, &l.SourcePath, &l.Text, zst, &l.Token, &l.AttemptNo,
		&l.BudgetBase, &l.Recoveries}
}

// settleLease derives a scanned lease's budget figures, once its AttemptNo
// is final.
func settleLease(l *store.Lease) {
	// Attempts lost to expired leases are not provider attempts.
	l.BudgetBase += l.Recoveries
	l.PrevAttempts = l.AttemptNo - 1
}

// unpackLease sets a scanned lease's text from zst, its compressed column
// (nil: the text is the old column's, scanned already). A claim calls it
// once its transaction has committed: decompressing is CPU work the one
// writer need not wait for, and the lease is already fenced by its token.
func unpackLease(l *store.Lease, zst []byte) error {
	text, err := unpack(zst, l.Text)
	if err != nil {
		return fmt.Errorf("text of job %d: %w", l.JobID, err)
	}
	l.Text = text
	return nil
}

// addPrevTokens sets PrevTokens of the leases with earlier attempts: the
// tokens of the job's attempts numbered below the lease's own. The same
// rule serves a fresh claim (whose attempt row is not written yet) and a
// batch item (whose attempt row is).
func addPrevTokens(ctx context.Context, q Querier, ls []*store.Lease) error {
	byID := map[int64]*store.Lease{}
	var again []any
	for _, l := range ls {
		if l.PrevAttempts > 0 && byID[l.JobID] == nil {
			byID[l.JobID] = l
			again = append(again, l.JobID)
		}
	}
	if len(again) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT job_id, attempt_no, input_tokens + output_tokens FROM attempts
		WHERE job_id IN (`+Placeholders(len(again))+`)`, again...)
	err = each(rows, err, func(r Rows) error {
		var id, n int64
		var no int
		if err := r.Scan(&id, &no, &n); err != nil {
			return err
		}
		if l := byID[id]; no < l.AttemptNo {
			l.PrevTokens += n
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tokens of earlier attempts: %w", err)
	}
	return nil
}
