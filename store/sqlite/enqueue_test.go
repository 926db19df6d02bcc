package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

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
