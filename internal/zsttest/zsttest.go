// Package zsttest reads the store's compressed columns for tests that look
// at the database directly. The store writes a job's text, a result's JSON
// and an outbox payload zstd-compressed into *_zst columns (migration 012,
// docs/storage.md); these helpers decode them the way the store's one
// reader does: the compressed column when set, else the TEXT column of a
// row written before 012. Frames written with one of the database's
// dictionaries (migration 014) need them loaded first: Texts does it, a
// caller of Unzst calls Dicts.
package zsttest

import (
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var (
	mu    sync.Mutex
	dicts = map[int64][]byte{}
	dec   = newDecoder()
)

func newDecoder() *zstd.Decoder {
	var opts []zstd.DOption
	for _, d := range dicts {
		opts = append(opts, zstd.WithDecoderDicts(d))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		panic(err) // Dicts loads each dictionary on its own first
	}
	return d
}

// Dicts makes db's zstd dictionaries known to Unzst. A database before
// migration 014 has none.
func Dicts(t testing.TB, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`SELECT id, dict FROM zstd_dicts`)
	if err != nil {
		if m := err.Error(); strings.Contains(m, "no such table") || strings.Contains(m, "does not exist") {
			return
		}
		t.Fatalf("read zstd dictionaries: %v", err)
	}
	defer rows.Close()
	mu.Lock()
	defer mu.Unlock()
	added := false
	for rows.Next() {
		var id int64
		var d []byte
		if err := rows.Scan(&id, &d); err != nil {
			t.Fatal(err)
		}
		if _, ok := dicts[id]; ok {
			continue
		}
		if _, err := zstd.NewReader(nil, zstd.WithDecoderDicts(d)); err != nil {
			t.Fatalf("zstd dictionary %d: %v", id, err)
		}
		dicts[id], added = d, true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if added {
		dec = newDecoder()
	}
}

// Unzst is the stored value: zst decoded when set, else text.
func Unzst(t testing.TB, zst []byte, text string) string {
	t.Helper()
	if zst == nil {
		return text
	}
	mu.Lock()
	d := dec
	mu.Unlock()
	b, err := d.DecodeAll(zst, nil)
	if err != nil {
		t.Fatalf("decompress a stored payload: %v", err)
	}
	return string(b)
}

// Texts are the values of the rows of q, which selects a TEXT column
// (coalesced to the empty string) and its *_zst column, in that order.
func Texts(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	Dicts(t, db)
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var text string
		var zst []byte
		if err := rows.Scan(&text, &zst); err != nil {
			t.Fatal(err)
		}
		out = append(out, Unzst(t, zst, text))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
