// Command floor measures what SQLite (modernc.org/sqlite, as invx uses
// it) charges on this machine for the least a first run must write per
// document, with none of invx's other work: a job row under a unique
// (tenant, job key), its text, its result (one per job), an attempt and an
// outbox event, in groups.
//
//	go run ./bench/floor [-n 10000] [-group 64] [-flow fenced|one] [-sync FULL|NORMAL]
//
// -flow fenced (the default) writes as invx does: per group, one enqueue
// transaction, one claim (lease and read the texts back) and one commit
// fenced by the lease token; -flow one inserts everything in one
// transaction a group, the floor of any design. The values are random
// bytes of the sizes invx's compressed ones have on bench/gen documents
// (text 700, result 550, event 114). invx's own writer takes about three
// times the fenced figure a document (bench/README, "What bounds the rows
// still marked MISS"): its other indexes (the review queue, duplicate
// invoice numbers, the stat check's sources, per-tenant listings) and wider
// rows are the difference.
package main

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	// The driver as invx configures it (DSN: WAL, synchronous FULL, foreign
	// keys, temporary files in memory); it registers "sqlite".
	sqlitestore "github.com/invx/invx/store/sqlite"
)

func main() {
	var c config
	flag.IntVar(&c.N, "n", 10000, "documents")
	flag.IntVar(&c.Group, "group", 64, "documents a transaction")
	flag.StringVar(&c.Flow, "flow", "fenced", "fenced: enqueue, claim and commit transactions a group; one: a single transaction a group")
	flag.StringVar(&c.Sync, "sync", "FULL", "PRAGMA synchronous of every transaction")
	keep := flag.String("db", "", "database file to write (default: a temporary one, removed)")
	flag.Parse()
	c.Path = *keep
	if c.Path == "" {
		dir, err := os.MkdirTemp("", "invx-floor-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		c.Path = filepath.Join(dir, "floor.db")
	}
	d, err := run(c)
	if err != nil {
		fail(err)
	}
	fmt.Printf("flow=%s sync=%s n=%d group=%d: %.1f us a document, %.0f documents/s\n",
		c.Flow, c.Sync, c.N, c.Group, float64(d.Microseconds())/float64(c.N), float64(c.N)/d.Seconds())
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "floor: %v\n", err)
	os.Exit(1)
}

type config struct {
	N, Group   int
	Flow, Sync string
	Path       string
}

// schema is the least invx's exactly-once contract needs: the unique job
// key, the lease token the commit is fenced by, one result a job, the
// attempt and the outbox event written with it.
var schema = []string{
	`CREATE TABLE jobs (id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, job_key BLOB NOT NULL, state TEXT NOT NULL,
		lease_token INTEGER NOT NULL DEFAULT 0, lease_expires_at INTEGER, source_path TEXT NOT NULL, result_id INTEGER,
		created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (tenant, job_key))`,
	`CREATE INDEX jobs_claim ON jobs (state, tenant, id)`,
	`CREATE TABLE job_texts (job_id INTEGER PRIMARY KEY REFERENCES jobs (id), zst BLOB NOT NULL)`,
	`CREATE TABLE results (id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, job_id INTEGER NOT NULL UNIQUE REFERENCES jobs (id),
		result_zst BLOB NOT NULL, committed_at INTEGER NOT NULL)`,
	`CREATE TABLE attempts (id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL REFERENCES jobs (id), attempt_no INTEGER NOT NULL,
		lease_token INTEGER NOT NULL, outcome TEXT NOT NULL, started_at INTEGER NOT NULL)`,
	`CREATE TABLE outbox (id INTEGER PRIMARY KEY, result_id INTEGER NOT NULL REFERENCES results (id), payload_zst BLOB NOT NULL,
		state TEXT NOT NULL DEFAULT 'pending')`,
}

// run writes c.N documents into a new database at c.Path and returns the
// time the writes took (not the schema's).
func run(c config) (time.Duration, error) {
	if c.Flow != "fenced" && c.Flow != "one" {
		return 0, fmt.Errorf("-flow %q: want fenced or one", c.Flow)
	}
	if c.N < 1 || c.Group < 1 {
		return 0, fmt.Errorf("-n and -group must be at least 1")
	}
	if err := create(c.Path); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", sqlitestore.DSN(c.Path, "immediate"))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // invx's writer: one connection, which keeps the pragma below
	if _, err := db.Exec("PRAGMA synchronous = " + c.Sync); err != nil {
		return 0, fmt.Errorf("-sync %s: %w", c.Sync, err)
	}
	for _, q := range schema {
		if _, err := db.Exec(q); err != nil {
			return 0, fmt.Errorf("schema: %w", err)
		}
	}
	w := &writer{db: db, text: random(700), result: random(550), event: random(114), now: time.Now().UnixNano()}
	start := time.Now()
	for lo := 0; lo < c.N; lo += c.Group {
		keys := make([][]byte, 0, c.Group)
		for i := lo; i < min(lo+c.Group, c.N); i++ {
			k := sha256.Sum256(fmt.Appendf(nil, "doc %d", i)) // random order, as job keys are
			keys = append(keys, k[:])
		}
		if err := w.group(c.Flow, lo, keys); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// create makes the database file with invx's page size (8192): the size
// is fixed by the first write, which switching to WAL is.
func create(path string) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{"PRAGMA page_size = 8192", "PRAGMA journal_mode = WAL"} {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
	}
	return nil
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // compressed values look random
	return b
}

type writer struct {
	db                  *sql.DB
	text, result, event []byte
	now                 int64
}

// group writes one group of documents: in one transaction, or enqueued,
// claimed and committed in three as invx does.
func (w *writer) group(flow string, first int, keys [][]byte) error {
	if flow == "one" {
		return w.tx(func(tx *sql.Tx) error {
			ids, err := w.enqueue(tx, first, keys, "leased")
			if err != nil {
				return err
			}
			return w.commit(tx, ids, false)
		})
	}
	var ids []int64
	err := w.tx(func(tx *sql.Tx) (err error) {
		ids, err = w.enqueue(tx, first, keys, "pending")
		return err
	})
	if err != nil {
		return err
	}
	if err := w.tx(func(tx *sql.Tx) error { return w.claim(tx, ids) }); err != nil {
		return err
	}
	return w.tx(func(tx *sql.Tx) error { return w.commit(tx, ids, true) })
}

func (w *writer) tx(fn func(*sql.Tx) error) error {
	tx, err := w.db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (w *writer) enqueue(tx *sql.Tx, first int, keys [][]byte, state string) ([]int64, error) {
	job, err := tx.Prepare(`INSERT INTO jobs (tenant, job_key, state, source_path, created_at, updated_at)
		VALUES ('default', ?, ?, ?, ?, ?) RETURNING id`)
	if err != nil {
		return nil, err
	}
	text, err := tx.Prepare(`INSERT INTO job_texts (job_id, zst) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(keys))
	for i, k := range keys {
		n := first + i
		if err := job.QueryRow(k, state, fmt.Sprintf("%04d/inv-%07d.txt", n/1000, n), w.now, w.now).Scan(&ids[i]); err != nil {
			return nil, fmt.Errorf("enqueue: %w", err)
		}
		if _, err := text.Exec(ids[i], w.text); err != nil {
			return nil, fmt.Errorf("enqueue text: %w", err)
		}
	}
	return ids, nil
}

func (w *writer) claim(tx *sql.Tx, ids []int64) error {
	lease, err := tx.Prepare(`UPDATE jobs SET state = 'leased', lease_token = lease_token + 1, lease_expires_at = ?,
		updated_at = ? WHERE id = ? AND state = 'pending'`)
	if err != nil {
		return err
	}
	text, err := tx.Prepare(`SELECT zst FROM job_texts WHERE job_id = ?`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := lease.Exec(w.now, w.now, id); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		var b []byte
		if err := text.QueryRow(id).Scan(&b); err != nil {
			return fmt.Errorf("claim text: %w", err)
		}
	}
	return nil
}

// commit writes each job's result, attempt and event, and marks the job
// done in the update that names its lease: fenced, the token must match,
// and a job whose lease was lost rolls the group back.
func (w *writer) commit(tx *sql.Tx, ids []int64, fenced bool) error {
	q := `UPDATE jobs SET state = 'succeeded', result_id = ?, updated_at = ? WHERE id = ? AND state = 'leased'`
	if fenced {
		q += ` AND lease_token = 1`
	}
	done, err := tx.Prepare(q)
	if err != nil {
		return err
	}
	result, err := tx.Prepare(`INSERT INTO results (tenant, job_id, result_zst, committed_at) VALUES ('default', ?, ?, ?) RETURNING id`)
	if err != nil {
		return err
	}
	attempt, err := tx.Prepare(`INSERT INTO attempts (job_id, attempt_no, lease_token, outcome, started_at) VALUES (?, 1, 1, 'committed', ?)`)
	if err != nil {
		return err
	}
	event, err := tx.Prepare(`INSERT INTO outbox (result_id, payload_zst) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		var rid int64
		if err := result.QueryRow(id, w.result, w.now).Scan(&rid); err != nil {
			return fmt.Errorf("result: %w", err)
		}
		res, err := done.Exec(rid, w.now, id)
		if err != nil {
			return fmt.Errorf("fence: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("job %d: lease lost", id)
		}
		if _, err := attempt.Exec(id, w.now); err != nil {
			return fmt.Errorf("attempt: %w", err)
		}
		if _, err := event.Exec(rid, w.event); err != nil {
			return fmt.Errorf("event: %w", err)
		}
	}
	return nil
}
