package storetest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// Texts of the rows written before migration 012 (TEXT columns) and after
// (compressed columns): each must read back byte for byte, whichever column
// holds it.
var (
	oldDoneText   = "Invoice 1 from Müller GmbH\nTotal EUR 1.234,50\n"
	oldQueuedText = "Invoice 2, still queued when invx was upgraded\n"
	oldResult     = `{"schema_version":"invoice-summary-v1", "title":"old ü"}`
	oldPayload    = `{"event":"invoice.committed","result":{"title":"old ü"}}`
	newText       = strings.Repeat("Invoice 3 line: 4 x widget at EUR 12,00 = EUR 48,00\n", 40)
	newResult     = `{"schema_version":"invoice-summary-v1",  "title":"new \u00fc ü", "bullets":["long enough to splice"]}`
)

// Upgrade012 is what an engine gives Compressed012: Exec runs raw SQL
// on a database migrated up to 011 only (no placeholders), Open opens it
// with the store (which migrates it to 012 and on), and Count runs a raw
// count(*) query on it afterwards, where Key is the SQL literal of a job
// key as stored since 015 (32 bytes, from its hex).
type Upgrade012 struct {
	Exec  func(t *testing.T, q string)
	Open  func(t *testing.T) store.Store
	Count func(t *testing.T, q string) int64
	Key   func(hex string) string
}

// Compressed012 checks that a database written by the pre-012 schema keeps
// its TEXT rows readable next to the compressed rows written after the
// upgrade, through every reader: jobs, leases, results (one, by ids,
// listed), outbox, prune; and that new rows are written compressed only.
func Compressed012(t *testing.T, u Upgrade012) {
	t.Helper()
	ctx := context.Background()
	const k1, k2 = "1111111111111111111111111111111111111111111111111111111111111111",
		"2222222222222222222222222222222222222222222222222222222222222222"
	// No explicit ids: PostgreSQL's sequences would not know of them.
	u.Exec(t, `INSERT INTO jobs (tenant, job_key, transformation, schema_version, source_digest, source_system,
			source_path, source_text, state, created_at, updated_at)
		VALUES ('acme', `+lit(k1)+`, 'invoice-summary', 'invoice-summary-v1', 'd1', 'fs', 'one.txt', `+lit(oldDoneText)+`, 'succeeded', 1, 1),
			('acme', `+lit(k2)+`, 'invoice-summary', 'invoice-summary-v1', 'd2', 'fs', 'two.txt', `+lit(oldQueuedText)+`, 'queued', 1, 1)`)
	u.Exec(t, `INSERT INTO results (tenant, job_key, job_id, schema_version, result, attempt_id, run_id, committed_at)
		VALUES ('acme', `+lit(k1)+`, (SELECT id FROM jobs WHERE job_key = `+lit(k1)+`), 'invoice-summary-v1', `+lit(oldResult)+`, 1, 'r0', 5000)`)
	u.Exec(t, `UPDATE jobs SET result_id = (SELECT id FROM results WHERE job_key = `+lit(k1)+`) WHERE job_key = `+lit(k1))
	u.Exec(t, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
		VALUES ('acme', `+lit(k1+":invoice.committed")+`, `+lit(k1)+`, (SELECT id FROM results WHERE job_key = `+lit(k1)+`),
			'invoice.committed', 'invoice.committed', `+lit(oldPayload)+`, 5000)`)
	s := u.Open(t)
	defer s.Close()
	now := time.Now()
	d3 := Doc("acme", "three.txt", newText)
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "acme", RunID: "r1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", Docs: []store.Document{d3}, Now: now}); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "acme", Owner: "w", RunID: "r1", Limit: 10, LeaseFor: time.Minute, Now: now})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	leased := map[string]string{}
	for _, l := range ls {
		leased[l.JobKey] = l.Text
		res := []byte(newResult)
		if l.JobKey == k2 {
			res = []byte(oldResult) // the queued old job commits after the upgrade: a new row
		}
		if _, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: "acme", JobKey: l.JobKey, Token: l.Token,
			AttemptID: l.AttemptID, RunID: "r1", SchemaVersion: "invoice-summary-v1", Result: res,
			Outbox:  []store.OutboxInput{{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(payloadOf(l.JobKey, res))}},
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now}); err != nil {
			t.Fatalf("commit %s: %v", l.JobKey, err)
		}
	}
	eq(t, "leased old text", leased[k2], oldQueuedText)
	eq(t, "leased new text", leased[d3.JobKey], newText)

	for key, want := range map[string]string{k1: oldDoneText, k2: oldQueuedText, d3.JobKey: newText} {
		j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "acme", Ref: key})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "job text of "+key[:4], j.SourceText, want)
	}
	wantJSON := map[string]string{k1: oldResult, k2: oldResult, d3.JobKey: newResult}
	var ids []int64
	for key, want := range wantJSON {
		r, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "acme", JobKey: key})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "result of "+key[:4], string(r.JSON), want)
		ids = append(ids, r.ID)
	}
	byID, err := s.GetResults(ctx, &store.GetResultsParams{IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range byID {
		eq(t, "results by id, "+r.JobKey[:4], string(r.JSON), wantJSON[r.JobKey])
	}
	listed := 0
	if err := s.ListResults(ctx, &store.ListResultsParams{Tenant: "acme"}, func(r *store.ResultRow) error {
		listed++
		eq(t, "listed result of "+r.JobKey[:4], string(r.JSON), wantJSON[r.JobKey])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	eq(t, "listed results", listed, 3)
	evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "outbox events", len(evs), 3)
	wantPayload := map[string]string{k1: oldPayload, k2: payloadOf(k2, []byte(oldResult)), d3.JobKey: payloadOf(d3.JobKey, []byte(newResult))}
	for _, e := range evs {
		eq(t, "payload of "+e.JobKey[:4], string(e.Payload), wantPayload[e.JobKey])
		// Migration 015 keeps the key's suffix only: it reads back whole.
		eq(t, "event key of "+e.JobKey[:4], e.EventKey, e.JobKey+":invoice.committed")
	}
	claimed, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "acme", Owner: "d", Limit: 10, LeaseFor: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	spliced := false
	for _, e := range claimed {
		eq(t, "claimed payload of "+e.JobKey[:4], string(e.Payload), wantPayload[e.JobKey])
		spliced = spliced || e.JobKey == d3.JobKey
	}
	if !spliced {
		t.Fatalf("the event stored without its result was not claimed (%d claimed)", len(claimed))
	}

	// Durable state: new rows compressed only, old rows untouched.
	for _, c := range []struct {
		what, q string
		want    int64
	}{
		{"old jobs still in TEXT", `SELECT count(*) FROM jobs WHERE source_text IS NOT NULL AND source_zst IS NULL
			AND NOT EXISTS (SELECT 1 FROM job_texts x WHERE x.job_id = jobs.id) AND job_key IN (` + u.Key(k1) + `, ` + u.Key(k2) + `)`, 2},
		{"new job compressed only", `SELECT count(*) FROM jobs JOIN job_texts x ON x.job_id = jobs.id
			WHERE source_text IS NULL AND source_zst IS NULL AND length(x.zst) BETWEEN 1 AND ` +
			strconv.Itoa(len(newText)/4) + ` AND job_key = ` + u.Key(d3.JobKey), 1},
		{"old result in TEXT", `SELECT count(*) FROM results WHERE job_key = ` + u.Key(k1) + ` AND result <> '' AND result_zst IS NULL`, 1},
		{"new results compressed only", `SELECT count(*) FROM results WHERE result = '' AND result_zst IS NOT NULL`, 2},
		{"old event in TEXT", `SELECT count(*) FROM outbox WHERE result_id IN (SELECT id FROM results WHERE job_key = ` + u.Key(k1) + `) AND payload <> '' AND payload_zst IS NULL`, 1},
		{"new events compressed only", `SELECT count(*) FROM outbox WHERE payload = '' AND payload_zst IS NOT NULL`, 2},
		// Migration 013: the event that repeats a result of minSplice
		// bytes or more is stored without it; the short one stays whole.
		{"event stored without its result", `SELECT count(*) FROM outbox WHERE payload_result_at IS NOT NULL AND result_id IN (SELECT id FROM results WHERE job_key = ` + u.Key(d3.JobKey) +
			`) AND length(payload_zst) < ` + strconv.Itoa(len(payloadOf(d3.JobKey, []byte(newResult)))-len(newResult)+16), 1},
		{"short result left in its event", `SELECT count(*) FROM outbox WHERE payload_result_at IS NOT NULL AND result_id NOT IN (SELECT id FROM results WHERE job_key = ` + u.Key(d3.JobKey) + `)`, 0},
	} {
		eq(t, c.what, u.Count(t, c.q), c.want)
	}

	// Prune counts the text as read and clears both columns.
	pr, err := s.Prune(ctx, &store.PruneParams{Before: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pruned jobs", pr.Jobs, 3)
	eq(t, "pruned text bytes", pr.TextBytes, int64(len(oldDoneText)+len(oldQueuedText)+len(newText)))
	eq(t, "text left after prune", u.Count(t, `SELECT count(*) FROM jobs WHERE source_text IS NOT NULL OR source_zst IS NOT NULL
		OR EXISTS (SELECT 1 FROM job_texts x WHERE x.job_id = jobs.id)`), 0)
}

// payloadOf is a commit event's payload that embeds its result, as the
// runner's invoice.committed does.
func payloadOf(key string, result []byte) string {
	return `{"event":"invoice.committed","job_key":"` + key + `","result":` + string(result) + `,"tail":true}`
}

// lit is s as an SQL string literal.
func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
