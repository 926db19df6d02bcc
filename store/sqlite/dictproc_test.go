package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/sqlite/sqlitetest"
	"github.com/invx/invx/store/storetest"
)

// dictDoc is the i-th document of the dictionary tests: varied enough for a
// dictionary to be trained from.
func dictDoc(i int) store.Document {
	return storetest.Doc("acme", fmt.Sprintf("p/%04d.txt", i), fmt.Sprintf(
		"RECHNUNG %06d\nLieferant: Weber %d KG\nNetto EUR %d,%02d\nUSt 19 %%\nBrutto EUR %d,%02d\nIBAN DE%018d\n",
		i, i%41, i*31%10000, i%100, i*37%10000, i*3%100, i*104729))
}

// TestDictionaryFromAnotherProcess: a process that opened the database
// before another trained a dictionary reads the rows written with it (it
// rereads the dictionaries when a frame names one it does not know).
func TestDictionaryFromAnotherProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "invx.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	child, in, lines := startChild(t, "TestDictionaryReaderProcess", "INVX_DICT_READER_DB="+path)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("reader process: %q, want ready", lines.Text())
	}

	const n = 300
	var docs []store.Document
	for i := range n {
		docs = append(docs, dictDoc(i))
	}
	enqueueDocs := func(ds []store.Document) {
		t.Helper()
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "acme", RunID: "r1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", Docs: ds, Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	enqueueDocs(docs)
	ro := sqlitetest.ReadOnly(t, path)
	deadline := time.Now().Add(time.Minute)
	for {
		var k int
		if err := ro.QueryRow(`SELECT count(*) FROM zstd_dicts WHERE kind = 'text'`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no text dictionary after a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the store takes it up just after
	var more []store.Document
	for i := n; i < n+20; i++ {
		more = append(more, dictDoc(i))
	}
	enqueueDocs(more)
	// The frame header descriptor's low two bits: 3, a 4-byte dictionary
	// id (every content-derived id takes 4 bytes).
	var withDict int
	if err := ro.QueryRow(`SELECT count(*) FROM job_texts WHERE ((instr('0123456789ABCDEF', substr(hex(substr(zst, 5, 1)), 2, 1)) - 1) & 3) = 3`).Scan(&withDict); err != nil {
		t.Fatal(err)
	}
	if withDict == 0 {
		t.Fatal("no job text was written with the dictionary")
	}

	// The reader opened the database before the dictionary existed.
	fmt.Fprintf(in, "%d\n", n+20)
	in.Close()
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("reader process: %v (%s)", err, strings.Join(got, "; "))
	}
	if !slices.Contains(got, fmt.Sprintf("read %d", n+20)) {
		t.Fatalf("reader process said %q, want read %d", got, n+20)
	}
}

// TestDictionaryReaderProcess is the reader process of
// TestDictionaryFromAnotherProcess (skipped when run on its own).
func TestDictionaryReaderProcess(t *testing.T) {
	path := os.Getenv("INVX_DICT_READER_DB")
	if path == "" {
		t.Skip("run by TestDictionaryFromAnotherProcess")
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Println("ready")
	var n int
	if _, err := fmt.Fscan(os.Stdin, &n); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		d := dictDoc(i)
		j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "acme", Ref: d.JobKey})
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		if j.SourceText != d.Text {
			t.Fatalf("job %d: text %q, want %q", i, j.SourceText, d.Text)
		}
	}
	fmt.Printf("read %d\n", n)
}
