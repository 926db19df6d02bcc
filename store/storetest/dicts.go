package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/invx/invx/store"
)

// DictDB is what an engine gives Dicts014, on one fresh database: Open
// opens it (a new Store each call), Exec runs raw SQL and returns its
// error, Blobs reads one BLOB/BYTEA column of a raw query, Count a raw
// count(*). Refused are engine-specific statements on zstd_dicts that must
// fail, besides UPDATE and DELETE.
type DictDB struct {
	Open    func(t *testing.T) store.Store
	Exec    func(q string) error
	Blobs   func(t *testing.T, q string) [][]byte
	Count   func(t *testing.T, q string) int64
	Refused []string
}

// dictTrainAt is the number of values of a kind after which a database
// trains its dictionary (jobs.defaultDictSamples); the test writes past it.
const dictTrainAt = 128

// Dicts014 checks migration 014's dictionaries: each kind (job text,
// result JSON, event payload) gets one once enough values were written,
// later values are written with it, earlier ones without, and every value
// reads back exactly as written through every reader, on this Store and
// on another one opened afterwards; a dictionary row can be neither changed
// nor deleted.
func Dicts014(t *testing.T, db DictDB) {
	t.Helper()
	ctx := context.Background()
	s := db.Open(t)
	defer s.Close()
	now := time.Now()

	const before, after = dictTrainAt + 44, 40
	text := map[string]string{}   // job key -> text
	result := map[string]string{} // job key -> result JSON
	event := map[string]string{}  // job key + action id -> payload
	docs := func(from, n int) []store.Document {
		var ds []store.Document
		for i := from; i < from+n; i++ {
			tx := fmt.Sprintf("INVOICE %06d\nSupplier: Müller %d GmbH, Hauptstraße %d\nPO %d\n"+
				"Line 1  Widget x %d  EUR %d,%02d\nLine 2  Freight  EUR %d,00\nTotal EUR %d,%02d\nDue 2026-%02d-%02d\nIBAN DE%018d\n",
				i, i%37, i%101, 4000+i*7, i%9+1, i*13%1000, i%100, i%50, i*17%10000, i*7%100, i%12+1, i%28+1, i*7919)
			d := Doc("acme", fmt.Sprintf("dicts/%04d.txt", i), tx)
			text[d.JobKey] = tx
			ds = append(ds, d)
		}
		return ds
	}
	enq := func(ds []store.Document) {
		t.Helper()
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "acme", RunID: "r1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", Docs: ds, Now: now}); err != nil {
			t.Fatalf("enqueue: %v", err)
		}
	}
	enq(docs(0, before))
	waitDict(t, db, "text")
	enq(docs(before, after))

	var ls []*store.Lease
	for {
		got := claim(t, s, "acme", "w", 100, now)
		if len(got) == 0 {
			break
		}
		ls = append(ls, got...)
	}
	eq(t, "leased", len(ls), before+after)
	for _, l := range ls {
		eq(t, "leased text of "+l.JobKey[:6], l.Text, text[l.JobKey])
	}
	commitAll := func(ls []*store.Lease) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, len(ls))
		for i, l := range ls {
			res := fmt.Sprintf(`{"schema_version":"invoice-summary-v1","title":"Invoice %s from Müller","bullets":["Total EUR %d,%02d","Due soon"],"evidence":%q}`,
				l.JobKey[:8], len(l.Text), i%100, l.Text[:20])
			committed := payloadOf(l.JobKey, []byte(res))
			if i%5 == 0 {
				// A name with "&" and "<>", in an event marshalled by
				// encoding/json (HTML-escaped): stored without its
				// result too (cutResult), and put back escaped.
				res = strings.Replace(res, "from Müller", "from Müller & Söhne <GmbH>", 1)
				b, err := json.Marshal(struct {
					Event  string          `json:"event"`
					Result json.RawMessage `json:"result"`
				}{store.EventCommitted, json.RawMessage(res)})
				if err != nil {
					t.Fatal(err)
				}
				committed = string(b)
			}
			action := fmt.Sprintf(`{"event":"action","job_key":%q,"kind":"verify_purchase_order","evidence":"PO %d"}`, l.JobKey, i)
			result[l.JobKey] = res
			event[l.JobKey+store.EventCommitted] = committed
			event[l.JobKey+"a1"] = action
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: "acme", JobKey: l.JobKey, Token: l.Token,
					AttemptID: l.AttemptID, RunID: "r1", SchemaVersion: "invoice-summary-v1", Result: []byte(res),
					Outbox: []store.OutboxInput{
						{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(committed)},
						{ActionID: "a1", Kind: "verify_purchase_order", Payload: []byte(action)}},
					Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "test"}, Now: now})
			}()
			if i%8 == 7 {
				wg.Wait() // eight at a time, as a run's workers would
			}
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("commit %s: %v", ls[i].JobKey, err)
			}
		}
	}
	commitAll(ls[:before])
	waitDict(t, db, "result")
	waitDict(t, db, "event")
	commitAll(ls[before:])

	readAll := func(what string, s store.Store) {
		t.Helper()
		for key, want := range text {
			j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "acme", Ref: key})
			if err != nil {
				t.Fatalf("%s: get job: %v", what, err)
			}
			eq(t, what+": job text of "+key[:6], j.SourceText, want)
			r, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "acme", JobKey: key})
			if err != nil {
				t.Fatalf("%s: get result: %v", what, err)
			}
			eq(t, what+": result of "+key[:6], string(r.JSON), result[key])
		}
		listed := 0
		if err := s.ListResults(ctx, &store.ListResultsParams{Tenant: "acme"}, func(r *store.ResultRow) error {
			listed++
			eq(t, what+": listed result of "+r.JobKey[:6], string(r.JSON), result[r.JobKey])
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		eq(t, what+": listed results", listed, len(result))
		evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "acme", Limit: 10 * len(event)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, what+": events", len(evs), len(event))
		for _, e := range evs {
			eq(t, what+": payload of "+e.JobKey[:6]+" "+e.ActionID, string(e.Payload), event[e.JobKey+e.ActionID])
		}
	}
	readAll("same store", s)

	// Durable state: three dictionaries, and each column holds frames
	// with and without one.
	eq(t, "dictionaries", db.Count(t, `SELECT count(*) FROM zstd_dicts`), 3)
	eq(t, "events stored without their HTML-escaped result", db.Count(t, `SELECT count(*) FROM outbox WHERE payload_result_at < 0`),
		int64((before+after+4)/5))
	eq(t, "events stored without their verbatim result", db.Count(t, `SELECT count(*) FROM outbox WHERE payload_result_at >= 0`),
		int64(before+after-(before+after+4)/5))
	for _, c := range []struct{ kind, q string }{
		{"text", `SELECT zst FROM job_texts`},
		{"result", `SELECT result_zst FROM results`},
		{"event", `SELECT payload_zst FROM outbox`},
	} {
		with, without := 0, 0
		for _, b := range db.Blobs(t, c.q) {
			var h zstd.Header
			if err := h.Decode(b); err != nil {
				t.Fatalf("%s frame header: %v", c.kind, err)
			}
			if h.DictionaryID != 0 {
				eq(t, c.kind+" frame's dictionary is the kind's", db.Count(t, fmt.Sprintf(
					`SELECT count(*) FROM zstd_dicts WHERE id = %d AND kind = '%s'`, h.DictionaryID, c.kind)), 1)
				with++
			} else {
				without++
			}
		}
		if with == 0 || without == 0 {
			t.Fatalf("%s frames: %d with a dictionary, %d without; want both", c.kind, with, without)
		}
	}

	// Another store on the database reads every row too.
	s2 := db.Open(t)
	readAll("second store", s2)
	s2.Close()

	for _, q := range append([]string{`UPDATE zstd_dicts SET dict = dict`, `UPDATE zstd_dicts SET created_at = 0`,
		`DELETE FROM zstd_dicts`, `DELETE FROM zstd_dicts WHERE kind = 'text'`}, db.Refused...) {
		if err := db.Exec(q); err == nil {
			t.Fatalf("%s: succeeded; a dictionary row must never change", q)
		}
	}
	eq(t, "dictionaries left", db.Count(t, `SELECT count(*) FROM zstd_dicts`), 3)
}

// waitDict waits for the database's dictionary of kind: it is trained off
// the write path, after the value that completed its samples.
func waitDict(t *testing.T, db DictDB, kind string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for db.Count(t, `SELECT count(*) FROM zstd_dicts WHERE kind = '`+kind+`'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no %s dictionary after a minute", kind)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The store that trained it takes it up just after the row commits
	// (it reads back whichever dictionary won): give it that moment.
	time.Sleep(300 * time.Millisecond)
}
