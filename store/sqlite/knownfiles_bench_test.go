package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// BenchmarkKnownFiles is a no-op rerun's stat check of a folder of 10k
// files the store knows, in the chunks discovery asks (one op: all 10k);
// with allocations, as the per-row scan is most of its cost.
func BenchmarkKnownFiles(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "invx.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n, chunk = 10000, 500
	docs := make([]store.Document, n)
	paths := make([]string, n)
	for i := range docs {
		docs[i] = storetest.Doc("t1", fmt.Sprintf("%02d/inv-%05d.txt", i/1000, i), fmt.Sprintf("invoice %d", i))
		docs[i].Stat = &store.FileStat{Size: 100, MtimeNS: int64(i), CtimeNS: int64(i), Inode: uint64(i), ReadOpts: "encoding=auto"}
		paths[i] = docs[i].Path
	}
	if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: time.Unix(1e9, 0)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for start := 0; start < n; start += chunk {
			m, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: docs[0].SourceSystem, Paths: paths[start : start+chunk]})
			if err != nil || len(m) != chunk {
				b.Fatalf("known files: %d of %d, %v", len(m), chunk, err)
			}
		}
	}
}
