package jobs

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/invx/invx/store/internal/driver"
)

// openMemberReasons opens the review reasons of the members whose new
// result is held for review: the caller's, then one per other live result
// with the same identity, looked for in one query for the group. Each
// member sees the results committed before the group and those of the
// members before it, never those after it: the same reasons as if they
// had committed one after another.
func (c *Core) openMemberReasons(ctx context.Context, tx Tx, ms []*member) error {
	var look []*member
	for _, m := range ms {
		if m.review && !m.res.Existing && driver.Matchable(m.p.Review.Identity) {
			look = append(look, m)
		}
	}
	if len(look) > 0 {
		if err := c.lockInvoices(ctx, tx, look); err != nil {
			return fmt.Errorf("lock invoice numbers: %w", err)
		}
		dups, err := c.findMemberDuplicates(ctx, tx, look)
		if err != nil {
			return fmt.Errorf("look for duplicates: %w", err)
		}
		for _, m := range look {
			for _, d := range dups[m.ord] {
				m.reasons = append(m.reasons, driver.DuplicateReason(d, m.p.Review.Identity))
			}
		}
	}
	r := rowArgs{t: reasonRows}
	for _, m := range ms {
		if !m.review || m.res.Existing {
			continue
		}
		if len(m.reasons) == 0 {
			m.reasons = nil
		}
		for _, rs := range m.reasons {
			r.add(m.p.Tenant, bin(m.p.JobKey), m.res.ResultID, rs.Reason, string(rs.Detail), m.now)
		}
		m.res.Reasons = driver.Reasons(m.reasons)
	}
	err := r.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(reasonRows, rows, `INSERT INTO review_reasons (tenant, job_key, result_id, reason, detail, state, opened_at)
			SELECT v.tn, v.jk, v.rid, v.rsn, v.dt, 'open', v.at FROM v WHERE v.tn IS NOT NULL`), args...)
	})
	if err != nil {
		return fmt.Errorf("open review reasons: %w", err)
	}
	return nil
}

var reasonRows = newTable(`tn, jk, rid, rsn, dt, at`, colText, colBytes, colInt, colText, colText, colInt)

// lockInvoices takes the engine's invoice lock of every invoice number the
// members look up, each once and in one order, so two groups that share
// numbers wait for each other rather than deadlock.
func (c *Core) lockInvoices(ctx context.Context, tx Tx, ms []*member) error {
	type key struct{ tenant, number string }
	seen := make(map[key]bool, len(ms))
	keys := make([]key, 0, len(ms))
	for _, m := range ms {
		k := key{m.p.Tenant, m.p.Review.Identity.NumberKey}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].tenant != keys[j].tenant {
			return keys[i].tenant < keys[j].tenant
		}
		return keys[i].number < keys[j].number
	})
	for _, k := range keys {
		if err := c.E.LockInvoice(ctx, tx, k.tenant, k.number); err != nil {
			return err
		}
	}
	return nil
}

var dupRows = newTable(`ord, tn, num, vat, nam, rid, jid`, colInt, colText, colText, colText, colText, colInt, colInt)

// findMemberDuplicates is one lookup on the results_identity index for
// the members: for each, by its ord, up to driver.MaxDuplicates other
// live, non-shadow results of the tenant with the same invoice number and
// supplier (VAT keys when both have one, else name keys), leaving out the
// result itself, results of the same text (another schema version), the
// result its text replaces (a held change accepted in review) and the
// results of the members after it.
func (c *Core) findMemberDuplicates(ctx context.Context, tx Tx, ms []*member) (map[int][]driver.Candidate, error) {
	r := rowArgs{t: dupRows}
	for _, m := range ms {
		id := m.p.Review.Identity
		r.add(m.ord, m.p.Tenant, id.NumberKey, id.VATKey, id.NameKey, m.res.ResultID, m.p.JobID)
	}
	out := make(map[int][]driver.Candidate, len(ms))
	err := r.chunks(func(rows int, args []any) error {
		q := c.multi(dupRows, rows, `SELECT ord, id, job_key, path, schema_version, doc_total_minor, doc_issue_date FROM (
				SELECT v.ord, r.id, r.job_key, coalesce(j.display_path, j.source_path) AS path, r.schema_version, r.doc_total_minor,
					r.doc_issue_date, row_number() OVER (PARTITION BY v.ord ORDER BY r.id) AS n
				FROM v JOIN results r ON r.tenant = v.tn AND r.number_key = v.num JOIN jobs j ON j.id = r.job_id
				WHERE r.superseded_by IS NULL AND NOT r.shadow AND r.id <> v.rid
					AND j.source_digest <> (SELECT s.source_digest FROM jobs s WHERE s.id = v.jid)
					AND r.job_key <> coalesce((SELECT p.prev_job_key FROM jobs p WHERE p.id = v.jid), '')
					AND CASE WHEN r.supplier_vat_key IS NOT NULL AND v.vat <> '' THEN r.supplier_vat_key = v.vat
						ELSE r.supplier_key = v.nam END
					AND NOT EXISTS (SELECT 1 FROM v w WHERE w.rid = r.id AND w.ord > v.ord)) AS d
			WHERE n <= `+strconv.Itoa(driver.MaxDuplicates)+` ORDER BY ord, id`)
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			var ord int
			var d driver.Candidate
			if err := r.Scan(&ord, &d.ResultID, keyOut(&d.JobKey), &d.Path, &d.SchemaVersion, &d.TotalMinor, &d.IssueDate); err != nil {
				return err
			}
			out[ord] = append(out[ord], d)
			return nil
		})
	})
	return out, err
}
