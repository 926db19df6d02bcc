package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/invx/invx/store"
)

// A file's stat is recorded with the digest it was read with, brought up to
// date when the file is read again unchanged, never put beside a held
// change's digest; an unread document is only reported on, never inserted.
func testKnownFiles(t *testing.T, s store.Store) {
	ctx := context.Background()
	known := func(paths ...string) map[string]store.KnownFile {
		t.Helper()
		m, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: "fs:/test", Paths: paths})
		if err != nil {
			t.Fatalf("known files: %v", err)
		}
		return m
	}
	statOf := func(m map[string]store.KnownFile, p string) store.FileStat {
		t.Helper()
		if m[p].Stat == nil {
			t.Fatalf("%s: no stat recorded", p)
		}
		return *m[p].Stat
	}
	s1 := store.FileStat{Size: 5, MtimeNS: 1_700_000_000_123456789, CtimeNS: 1_700_000_100_987654321, Inode: 1<<63 + 7, ReadOpts: "utf-8"}
	a := Doc("t1", "a.txt", "alpha")
	a.Stat = &s1
	plain := Doc("t1", "plain.txt", "no stat")
	eqSlice(t, "first", outcomes(enqueue(t, s, "t1", store.OnChangeHold, a, plain)), []string{store.EnqueueNew, store.EnqueueNew})
	m := known("a.txt", "plain.txt", "missing.txt")
	eq(t, "paths known", len(m), 2)
	eq(t, "digest", m["a.txt"].Digest, a.Digest)
	eq(t, "stat", statOf(m, "a.txt"), s1)
	// The job each reference points at comes with it.
	eq(t, "job key", m["a.txt"].JobKey, a.JobKey)
	if m["plain.txt"].Stat != nil {
		t.Errorf("plain.txt: stat %+v, want none", *m["plain.txt"].Stat)
	}

	// Read again unchanged after a touch: settled, the stat follows.
	s2 := s1
	s2.MtimeNS += 1e9
	a.Stat = &s2
	eq(t, "touched", enqueue(t, s, "t1", store.OnChangeHold, a)[0].Outcome, store.EnqueuePending)
	eq(t, "stat after touch", statOf(known("a.txt"), "a.txt"), s2)
	// Only the status change time moved (a time set back on purpose, a
	// chmod): settled, and the new ctime is recorded.
	s2c := s2
	s2c.CtimeNS += 1e9
	a.Stat = &s2c
	eq(t, "ctime moved", enqueue(t, s, "t1", store.OnChangeHold, a)[0].Outcome, store.EnqueuePending)
	eq(t, "stat after ctime moved", statOf(known("a.txt"), "a.txt"), s2c)
	s2 = s2c
	// Read again with other read options (another --encoding): settled,
	// and the options recorded are the new ones (stored as a label id).
	s2b := s2
	s2b.ReadOpts = "windows-1252"
	a.Stat = &s2b
	eq(t, "other read options", enqueue(t, s, "t1", store.OnChangeHold, a)[0].Outcome, store.EnqueuePending)
	eq(t, "stat after other read options", statOf(known("a.txt"), "a.txt"), s2b)
	a.Stat = &s2
	eq(t, "read options back", enqueue(t, s, "t1", store.OnChangeHold, a)[0].Outcome, store.EnqueuePending)
	eq(t, "stat with the first read options", statOf(known("a.txt"), "a.txt"), s2)
	// The same path under another source system is another reference.
	other := Doc("t1", "a.txt", "alpha from another folder")
	other.SourceSystem = "fs:/test2"
	eq(t, "same path, other source system", enqueue(t, s, "t1", store.OnChangeHold, other)[0].Outcome, store.EnqueueNew)
	eq(t, "first reference kept", known("a.txt")["a.txt"].Digest, a.Digest)
	m2, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: "fs:/test2", Paths: []string{"a.txt"}})
	if err != nil {
		t.Fatalf("known files: %v", err)
	}
	eq(t, "other reference", m2["a.txt"].Digest, other.Digest)

	// A held change keeps the committed digest and its stat.
	commitAll(t, s, "t1")
	changed := Doc("t1", "a.txt", "alpha, changed")
	s3 := store.FileStat{Size: 14, MtimeNS: s2.MtimeNS + 1e9, Inode: s1.Inode, ReadOpts: "utf-8"}
	changed.Stat = &s3
	eq(t, "changed", enqueue(t, s, "t1", store.OnChangeHold, changed)[0].Outcome, store.EnqueueHeld)
	m = known("a.txt")
	eq(t, "digest kept", m["a.txt"].Digest, a.Digest)
	eq(t, "stat kept", statOf(m, "a.txt"), s2)
	eq(t, "committed job kept", m["a.txt"].JobKey, a.JobKey)

	// Unread: reported from the existing job, in any batch.
	unread := Doc("t1", "a.txt", "alpha")
	unread.Text, unread.Unread = "", true
	eqSlice(t, "unread", outcomes(enqueue(t, s, "t1", store.OnChangeHold, unread, plain)),
		[]string{store.EnqueueAlreadyCommitted, store.EnqueueAlreadyCommitted})
	// An unread document the store does not know fails the batch, which
	// writes nothing.
	gone := Doc("t1", "gone.txt", "never enqueued")
	gone.Text, gone.Unread = "", true
	fresh := Doc("t1", "fresh.txt", "fresh")
	_, err = s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-2", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{fresh, gone}, Now: t0})
	if !errors.Is(err, store.ErrUnreadUnknown) {
		t.Fatalf("enqueue of an unknown unread document: %v, want ErrUnreadUnknown", err)
	}
	eq(t, "nothing written", state(t, s, "t1", fresh.JobKey).State, "")
	eq(t, "no reference", len(known("fresh.txt", "gone.txt")), 0)
}

// KnownFiles answers about the paths asked, whatever else the store knows
// between them and in whatever order they come: a few paths far apart
// among many known ones (a range read of the key would hold far more than
// were asked), neighbours, a path the store does not know, and a chunk
// larger than one statement's.
func testKnownFilesAsked(t *testing.T, s store.Store) {
	ctx := context.Background()
	var docs []store.Document
	for i := range 600 {
		docs = append(docs, Doc("t1", fmt.Sprintf("r/%03d.txt", i), fmt.Sprintf("text %d", i)))
	}
	enqueue(t, s, "t1", store.OnChangeHold, docs...)
	for _, tc := range []struct {
		name  string
		paths []string
		want  []int // indexes into docs
	}{
		{"far apart", []string{"r/599.txt", "r/000.txt", "r/300.txt"}, []int{599, 0, 300}},
		{"neighbours and an unknown path", []string{"r/011.txt", "r/010a.txt", "r/010.txt", "r/012.txt"}, []int{11, 10, 12}},
		{"the ends alone", []string{"r/000.txt", "r/599.txt"}, []int{0, 599}},
		{"one", []string{"r/123.txt"}, []int{123}},
		{"more than a chunk, unknown ones among them", allPaths(docs, "r/zz.txt", "q/0.txt"), seq(600)},
	} {
		m, err := s.KnownFiles(ctx, &store.KnownFilesParams{Tenant: "t1", SourceSystem: "fs:/test", Paths: tc.paths})
		if err != nil {
			t.Fatalf("%s: known files: %v", tc.name, err)
		}
		if len(m) != len(tc.want) {
			t.Errorf("%s: %d references, want %d", tc.name, len(m), len(tc.want))
		}
		for _, i := range tc.want {
			if got := m[docs[i].Path]; got.Digest != docs[i].Digest || got.JobKey != docs[i].JobKey || got.Job == nil {
				t.Errorf("%s: %s = %+v, want digest %s and its job", tc.name, docs[i].Path, got, docs[i].Digest)
			}
		}
	}
}

func allPaths(docs []store.Document, extra ...string) []string {
	var out []string
	for i := len(docs) - 1; i >= 0; i-- {
		out = append(out, docs[i].Path)
	}
	return append(out, extra...)
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
