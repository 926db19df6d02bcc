package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// A no-op rerun of a chunk of known documents is one batched, read-only
// lookup, not statements per document: the count is fixed whatever the
// chunk's size, and no write transaction is opened (nothing to commit or
// sync).
func TestNoopRerunStatementsPerChunk(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	ctx := context.Background()
	docs := make([]store.Document, 300)
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("inv-%03d.txt", i), fmt.Sprintf("invoice %d", i))
	}
	enq := func() []store.EnqueueResult {
		t.Helper()
		res, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: time.Unix(1e9, 0)})
		if err != nil {
			t.Fatalf("enqueue: %v", err)
		}
		return res
	}
	first := enq()
	n := sqlite.CountStatements(s)
	writes := sqlite.CountWrites(s)
	again := enq()
	for i := range again {
		if again[i].Outcome != store.EnqueuePending || again[i].JobID != first[i].JobID {
			t.Fatalf("doc %d: rerun = %+v, want pending job %d", i, again[i], first[i].JobID)
		}
	}
	// One statement: the references joined to their jobs and skips.
	if got := n.Load(); got != 1 {
		t.Errorf("no-op rerun of %d documents ran %d statements, want 1", len(docs), got)
	}
	if got := writes.Load(); got != 0 {
		t.Errorf("no-op rerun of %d documents opened %d write transactions, want 0", len(docs), got)
	}
}

// Texts are compressed before the enqueue transaction when its read-only
// lookup expects them to insert a job, and inside it otherwise; a claim
// decompresses them after its transaction. Whichever way a text went, the
// lease hands back exactly the enqueued text: a new path (compressed
// before), the same path and text under another schema version (a new job
// the lookup did not expect: its path already points at that text), and a
// changed text at a known path.
func TestEnqueuedTextsWhereverCompressed(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	ctx := context.Background()
	enq := func(version string, docs ...store.Document) {
		t.Helper()
		res, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: version, OnChange: store.OnChangeProcess, Docs: docs, Now: time.Unix(1e9, 0)})
		if err != nil {
			t.Fatalf("enqueue: %v", err)
		}
		for i, r := range res {
			if r.Outcome != store.EnqueueNew {
				t.Fatalf("enqueue %s (%s): outcome %q, want new", docs[i].Path, version, r.Outcome)
			}
		}
	}
	fresh := storetest.Doc("t1", "a.txt", "invoice A, total 10.00")
	enq("invoice-summary-v1", fresh)
	// The same path and text keyed by another schema version.
	v2 := fresh
	v2.JobKey = strings.Repeat("ab", 32)
	changed := storetest.Doc("t1", "a.txt", "invoice A, total 12.00 (corrected)")
	enq("invoice-summary-v2", v2)
	enq("invoice-summary-v1", changed)

	want := map[string]string{fresh.JobKey: fresh.Text, v2.JobKey: v2.Text, changed.JobKey: changed.Text}
	ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "w", RunID: "run-1", Limit: 10, LeaseFor: time.Minute,
		Now: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	got := map[string]string{}
	for _, l := range ls {
		got[l.JobKey] = l.Text
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("leased texts (-want +got):\n%s", diff)
	}
}
