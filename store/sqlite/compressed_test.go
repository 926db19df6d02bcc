package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
	"github.com/invx/invx/store/storetest"
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
	newResult     = `{"schema_version":"invoice-summary-v1",  "title":"new \u00fc ü"}`
)

// A database written by the pre-012 schema keeps its TEXT rows readable
// next to the compressed rows written after the upgrade, through every
// reader: jobs, leases, results (one, by ids, listed), outbox, prune.
func TestCompressedPayloadsNextToOldRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "invx.db")
	db := oldDatabase(t, path, 11)
	const k1, k2 = "1111111111111111111111111111111111111111111111111111111111111111",
		"2222222222222222222222222222222222222222222222222222222222222222"
	mustExec(t, db, `INSERT INTO jobs (id, tenant, job_key, transformation, schema_version, source_digest, source_system,
			source_path, source_text, state, result_id, created_at, updated_at)
		VALUES (1, 'acme', ?, 'invoice-summary', 'invoice-summary-v1', 'd1', 'fs', 'one.txt', ?, 'succeeded', 1, 1, 1),
			(2, 'acme', ?, 'invoice-summary', 'invoice-summary-v1', 'd2', 'fs', 'two.txt', ?, 'queued', NULL, 1, 1)`,
		k1, oldDoneText, k2, oldQueuedText)
	mustExec(t, db, `INSERT INTO results (id, tenant, job_key, job_id, schema_version, result, attempt_id, run_id, committed_at)
		VALUES (1, 'acme', ?, 1, 'invoice-summary-v1', ?, 1, 'r0', 5000)`, k1, oldResult)
	mustExec(t, db, `INSERT INTO outbox (tenant, event_key, job_key, result_id, action_id, kind, payload, created_at)
		VALUES ('acme', ?, ?, 1, 'invoice.committed', 'invoice.committed', ?, 5000)`, k1+":invoice.committed", k1, oldPayload)
	db.Close()

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("open the pre-012 database: %v", err)
	}
	defer s.Close()
	now := time.Now()
	d3 := storetest.Doc("acme", "three.txt", newText)
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
			Outbox:  []store.OutboxInput{{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte("payload of " + l.JobKey)}},
			Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now}); err != nil {
			t.Fatalf("commit %s: %v", l.JobKey, err)
		}
	}
	eqStr(t, "leased old text", leased[k2], oldQueuedText)
	eqStr(t, "leased new text", leased[d3.JobKey], newText)

	for key, want := range map[string]string{k1: oldDoneText, k2: oldQueuedText, d3.JobKey: newText} {
		j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "acme", Ref: key})
		if err != nil {
			t.Fatal(err)
		}
		eqStr(t, "job text of "+key[:4], j.SourceText, want)
	}
	wantJSON := map[string]string{k1: oldResult, k2: oldResult, d3.JobKey: newResult}
	var ids []int64
	for key, want := range wantJSON {
		r, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "acme", JobKey: key})
		if err != nil {
			t.Fatal(err)
		}
		eqStr(t, "result of "+key[:4], string(r.JSON), want)
		ids = append(ids, r.ID)
	}
	byID, err := s.GetResults(ctx, &store.GetResultsParams{IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range byID {
		eqStr(t, "results by id, "+r.JobKey[:4], string(r.JSON), wantJSON[r.JobKey])
	}
	listed := 0
	if err := s.ListResults(ctx, &store.ListResultsParams{Tenant: "acme"}, func(r *store.ResultRow) error {
		listed++
		eqStr(t, "listed result of "+r.JobKey[:4], string(r.JSON), wantJSON[r.JobKey])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	eqInt(t, "listed results", int64(listed), 3)
	evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	eqInt(t, "outbox events", int64(len(evs)), 3)
	for _, e := range evs {
		want := "payload of " + e.JobKey
		if e.JobKey == k1 {
			want = oldPayload
		}
		eqStr(t, "payload of "+e.JobKey[:4], string(e.Payload), want)
	}

	// Durable state: new rows compressed only, old rows untouched.
	ro := sqlitetest.ReadOnly(t, s.Path())
	for _, c := range []struct {
		what, q string
		want    int64
	}{
		{"old jobs still in TEXT", `SELECT count(*) FROM jobs WHERE source_text IS NOT NULL AND source_zst IS NULL AND id IN (1, 2)`, 2},
		{"new job compressed only", `SELECT count(*) FROM jobs WHERE source_text IS NULL AND length(source_zst) BETWEEN 1 AND ` +
			itoa(len(newText)/4) + ` AND job_key = '` + d3.JobKey + `'`, 1},
		{"old result in TEXT", `SELECT count(*) FROM results WHERE id = 1 AND result <> '' AND result_zst IS NULL`, 1},
		{"new results compressed only", `SELECT count(*) FROM results WHERE result = '' AND result_zst IS NOT NULL`, 2},
		{"old event in TEXT", `SELECT count(*) FROM outbox WHERE job_key = '` + k1 + `' AND payload <> '' AND payload_zst IS NULL`, 1},
		{"new events compressed only", `SELECT count(*) FROM outbox WHERE payload = '' AND payload_zst IS NOT NULL`, 2},
	} {
		eqInt(t, c.what, count(t, ro, c.q), c.want)
	}

	// Prune counts the text as read and clears both columns.
	pr, err := s.Prune(ctx, &store.PruneParams{Before: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	eqInt(t, "pruned jobs", int64(pr.Jobs), 3)
	eqInt(t, "pruned text bytes", pr.TextBytes, int64(len(oldDoneText)+len(oldQueuedText)+len(newText)))
	eqInt(t, "text left after prune", count(t, ro, `SELECT count(*) FROM jobs WHERE source_text IS NOT NULL OR source_zst IS NOT NULL`), 0)
}

func count(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func eqStr(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
