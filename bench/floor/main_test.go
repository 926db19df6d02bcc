package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunWritesEveryDocument: both flows leave every document done, with
// its text, result, attempt and event: the figure is for the whole write.
func TestRunWritesEveryDocument(t *testing.T) {
	t.Parallel()
	for _, flow := range []string{"fenced", "one"} {
		t.Run(flow, func(t *testing.T) {
			t.Parallel()
			c := config{N: 130, Group: 64, Flow: flow, Sync: "NORMAL", Path: filepath.Join(t.TempDir(), "f.db")}
			if _, err := run(c); err != nil {
				t.Fatal(err)
			}
			db := openDB(t, c.Path)
			for q, want := range map[string]int{
				`SELECT count(*) FROM jobs WHERE state = 'succeeded' AND result_id IS NOT NULL`: 130,
				`SELECT count(*) FROM job_texts`:                                                130,
				`SELECT count(DISTINCT job_id) FROM results`:                                    130,
				`SELECT count(*) FROM attempts`:                                                 130,
				`SELECT count(*) FROM outbox o JOIN results r ON r.id = o.result_id`:            130,
			} {
				var n int
				if err := db.QueryRow(q).Scan(&n); err != nil || n != want {
					t.Errorf("%s = %d, %v; want %d", q, n, err, want)
				}
			}
		})
	}
}

// TestFencedCommitRefusesALostLease: a job claimed again since (its token
// moved on) is not committed, and nothing of the group is.
func TestFencedCommitRefusesALostLease(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.db")
	if _, err := run(config{N: 1, Group: 1, Flow: "fenced", Sync: "NORMAL", Path: path}); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	w := &writer{db: db, text: random(10), result: random(10), event: random(10), now: time.Now().UnixNano()}
	var ids []int64
	err := w.tx(func(tx *sql.Tx) (err error) {
		ids, err = w.enqueue(tx, 1, [][]byte{[]byte("k1"), []byte("k2")}, "pending")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.tx(func(tx *sql.Tx) error { return w.claim(tx, ids) }); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE jobs SET lease_token = 2 WHERE id = ?`, ids[1]); err != nil {
		t.Fatal(err)
	}
	err = w.tx(func(tx *sql.Tx) error { return w.commit(tx, ids, true) })
	if err == nil || !strings.Contains(err.Error(), "lease lost") {
		t.Fatalf("commit = %v, want lease lost", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM results`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("results = %d, %v; want only the first run's 1", n, err)
	}
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
