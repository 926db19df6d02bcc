package jobs

import (
	"context"
	"fmt"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// The statements of a group commit, one per table for the whole group
// (values.go): each reads its rows from a table v bound as arguments. v's
// column names differ from every column of the tables written, so a name
// is never ambiguous.

var fenceRows = newTable(`jid, tok, att, at`, colInt, colInt, colInt, colInt)

// fenced is what the fence tells of a job it moved on.
type fenced struct{ shadow, replaces bool }

// fence moves on the jobs whose lease the members still hold, and returns
// them by job id: only the current lease holder, answering the attempt
// still open, moves a job on. Where writers run side by side the rows stay
// locked until the transaction ends, so no claimer takes a job over
// meanwhile. The members name distinct jobs (commitGroup sees to it).
func (c *Core) fence(ctx context.Context, tx Tx, ms []*member) (map[int64]fenced, error) {
	r := rowArgs{t: fenceRows}
	for _, m := range ms {
		r.add(m.p.JobID, m.p.Token, m.p.AttemptID, m.now)
	}
	out := make(map[int64]fenced, len(ms))
	err := r.chunks(func(rows int, args []any) error {
		q := c.multi(fenceRows, rows, `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_expires_at = NULL,
				next_attempt_at = NULL, updated_at = v.at
			FROM v
			WHERE jobs.id = v.jid AND jobs.lease_token = v.tok AND jobs.state = 'running'
				AND EXISTS (SELECT 1 FROM attempts a WHERE a.id = v.att AND a.job_id = jobs.id AND a.outcome = '')
			RETURNING jobs.id, jobs.shadow, jobs.prev_job_key IS NOT NULL`)
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			var id int64
			var f fenced
			if err := r.Scan(&id, &f.shadow, &f.replaces); err != nil {
				return err
			}
			out[id] = f
			return nil
		})
	})
	return out, err
}

var resultRows = newTable(`ord, tn, jk, jid, sv, zst, att, run, shad, at, vat, nam, num, tot, iss`,
	colInt, colText, colBytes, colInt, colText, colBytes, colInt, colText, colBool, colInt, colText, colText, colText, colInt,
	colText)

// insertResults inserts each member's result, or returns the one already
// committed for its (tenant, job key), atomically: the no-op update makes
// RETURNING yield the row that was there. Results are inserted in member
// order, as one commit after another would.
func (c *Core) insertResults(ctx context.Context, tx Tx, ms []*member) error {
	r := rowArgs{t: resultRows}
	type key struct{ tenant, jobKey string }
	byKey := make(map[key]*member, len(ms))
	for _, m := range ms {
		p := m.p
		id := driver.IdentityOf(p.Review, m.shadow)
		r.add(m.ord, p.Tenant, bin(p.JobKey), p.JobID, p.SchemaVersion, m.packed.result, p.AttemptID, p.RunID, m.shadow, m.now,
			id.VATKey, id.NameKey, id.NumberKey, id.TotalMinor, id.IssueDate)
		byKey[key{p.Tenant, p.JobKey}] = m
	}
	err := r.chunks(func(rows int, args []any) error {
		q := c.multi(resultRows, rows, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, result_zst, attempt_id,
				run_id, shadow, committed_at, supplier_vat_key, supplier_key, number_key, doc_total_minor, doc_issue_date)
			SELECT v.tn, v.jk, v.jid, v.sv, '', v.zst, v.att, v.run, v.shad, v.at, v.vat, v.nam, v.num, v.tot, v.iss
			FROM v WHERE v.jid IS NOT NULL ORDER BY v.ord
			ON CONFLICT (tenant, job_key) DO UPDATE SET tenant = excluded.tenant
			RETURNING id, attempt_id, tenant, job_key`)
		rows2, err := tx.Query(ctx, q, args...)
		return each(rows2, err, func(r Rows) error {
			var id, attemptID int64
			var k key
			if err := r.Scan(&id, &attemptID, &k.tenant, keyOut(&k.jobKey)); err != nil {
				return err
			}
			m := byKey[k]
			if m == nil {
				return fmt.Errorf("result %d: job %s of tenant %s is not in the group", id, k.jobKey, k.tenant)
			}
			m.res = &store.CommitResult{ResultID: id, Existing: attemptID != m.p.AttemptID}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.res == nil {
			return fmt.Errorf("job %d: no result returned", m.p.JobID)
		}
	}
	return nil
}

var linkRows = newTable(`jid, rid`, colInt, colInt)

// linkResults points each job at its result (deferred).
func (c *Core) linkResults(ctx context.Context, tx Tx, ms []*member) error {
	r := rowArgs{t: linkRows}
	for _, m := range ms {
		r.add(m.p.JobID, m.res.ResultID)
	}
	return r.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(linkRows, rows, `UPDATE jobs SET result_id = v.rid FROM v WHERE jobs.id = v.jid`), args...)
	})
}

var outboxRows = newTable(`tn, ek, rid, aid, kd, zst, rat, at, st`,
	colText, colText, colInt, colText, colText, colBytes, colInt, colInt, colText)

// insertOutbox writes the events of the members whose result is new and
// not shadow (deferred): pending, or held while review reasons are open.
func (c *Core) insertOutbox(ctx context.Context, tx Tx, ms []*member) error {
	r := rowArgs{t: outboxRows}
	for _, m := range ms {
		if m.shadow || m.res.Existing {
			continue
		}
		p := m.p
		state := driver.EventState(len(m.reasons))
		for i := range p.Outbox {
			ev, pk := &p.Outbox[i], &m.packed.events[i]
			suffix := eventSuffix(p.JobKey, store.EventKey(p.JobKey, ev))
			action, kind := eventCols(suffix, ev.ActionID, ev.Kind)
			r.add(p.Tenant, suffix, m.res.ResultID, action, kind, pk.body, pk.at, m.now, state)
		}
	}
	err := r.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(outboxRows, rows, `INSERT INTO outbox (tenant, event_suffix, result_id, action_id, kind,
				payload, payload_zst, payload_result_at, created_at, state)
			SELECT v.tn, v.ek, v.rid, v.aid, v.kd, '', v.zst, v.rat, v.at, v.st FROM v WHERE v.tn IS NOT NULL
			ON CONFLICT (result_id, event_suffix) DO NOTHING`), args...)
	})
	if err != nil {
		return fmt.Errorf("insert outbox events: %w", err)
	}
	return nil
}

// FinishWidth is how many columns each row of the statement that finishes
// a group's attempts has; the attempt's id is the first. Tests that pick
// one attempt's finish (jobstest.FinishOf) read it.
const FinishWidth = 18

// FinishTag is in the text of the statement that finishes a group's
// attempts, and in no other.
const FinishTag = `UPDATE attempts SET outcome = v.oc, finished_at = v.at`

var finishRows = newTable(`aid, oc, at, ec, cat, msg, prov, mdl, hs, rq, dur, itok, otok, nd, ph, outp, bid, cid`,
	colInt, colText, colInt, colText, colText, colText, colText, colText, colInt, colText, colInt, colInt, colInt, colInt, colBytes,
	colBytes, colText, colText)

// finishMembers writes the members' attempt outcomes (deferred).
func (c *Core) finishMembers(ctx context.Context, tx Tx, ms []*member) error {
	t := c.E.Text
	r := rowArgs{t: finishRows}
	for _, m := range ms {
		a := &m.p.Attempt
		r.add(m.p.AttemptID, t(a.Outcome), m.now, t(a.ErrorClass), t(a.Category), t(a.Message), t(a.Provider), t(a.Model),
			a.HTTPStatus, t(a.RequestID), a.Duration.Milliseconds(), a.InputTokens, a.OutputTokens, a.NextDelay.Milliseconds(),
			bin(a.PromptHash), a.Output, c.nullText(a.BatchID), c.nullText(a.CustomID))
	}
	err := r.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(finishRows, rows, FinishTag+`, error_class = v.ec, category = v.cat,
				message = v.msg, provider = v.prov, model = v.mdl, http_status = v.hs, request_id = v.rq, duration_ms = v.dur,
				input_tokens = v.itok, output_tokens = v.otok, next_delay_ms = v.nd, prompt_hash = v.ph, output = v.outp,
				batch_id = v.bid, custom_id = v.cid
			FROM v WHERE attempts.id = v.aid`), args...)
	})
	if err != nil {
		return fmt.Errorf("finish attempts: %w", err)
	}
	return nil
}

var staleRows = newTable(`aid, at, ec, msg, prov, mdl, dur, itok, otok, ph, bid, cid`,
	colInt, colInt, colText, colText, colText, colText, colInt, colInt, colInt, colBytes, colText, colText)

// markStaleMembers records the attempts of fenced-out members stale_lease
// (deferred). Only an attempt still open (or closed by a lease recovery)
// becomes stale_lease: a replayed call must not rewrite a finished attempt.
func (c *Core) markStaleMembers(ctx context.Context, tx Tx, ms []*member) error {
	t := c.E.Text
	r := rowArgs{t: staleRows}
	for _, m := range ms {
		a := &m.p.Attempt
		r.add(m.p.AttemptID, m.now, t(a.ErrorClass), t(a.Message), t(a.Provider), t(a.Model), a.Duration.Milliseconds(),
			a.InputTokens, a.OutputTokens, bin(a.PromptHash), c.nullText(a.BatchID), c.nullText(a.CustomID))
	}
	return r.chunks(func(rows int, args []any) error {
		return tx.Defer(ctx, c.multi(staleRows, rows, `UPDATE attempts SET outcome = '`+store.OutcomeStaleLease+`', finished_at = v.at,
				error_class = v.ec, message = v.msg, provider = v.prov, model = v.mdl, duration_ms = v.dur, input_tokens = v.itok,
				output_tokens = v.otok, prompt_hash = v.ph, batch_id = v.bid, custom_id = v.cid
			FROM v WHERE attempts.id = v.aid AND attempts.outcome IN ('', '`+store.OutcomeLeaseExpired+`')`), args...)
	})
}
