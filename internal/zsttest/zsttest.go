// Package zsttest reads the store's compressed columns for tests that look
// at the database directly. The store writes a job's text, a result's JSON
// and an outbox payload zstd-compressed into *_zst columns (migration 012,
// docs/storage.md); these helpers decode them the way the store's one
// reader does: the compressed column when set, else the TEXT column of a
// row written before 012.
package zsttest

import (
	"database/sql"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var dec, _ = zstd.NewReader(nil)

// Unzst is the stored value: zst decoded when set, else text.
func Unzst(t testing.TB, zst []byte, text string) string {
	t.Helper()
	if zst == nil {
		return text
	}
	b, err := dec.DecodeAll(zst, nil)
	if err != nil {
		t.Fatalf("decompress a stored payload: %v", err)
	}
	return string(b)
}

// Texts are the values of the rows of q, which selects a TEXT column
// (coalesced to the empty string) and its *_zst column, in that order.
func Texts(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
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
