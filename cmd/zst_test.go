package cmd_test

import (
	"database/sql"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The store writes a job's text, a result's JSON and an outbox payload
// zstd-compressed into *_zst columns (migration 012, docs/storage.md);
// tests that read those straight from the database decode them here, the
// way the store's one reader does: the compressed column when set, else
// the TEXT column of a row written before 012.
var zstdDec, _ = zstd.NewReader(nil)

func unzst(t *testing.T, zst []byte, text string) string {
	t.Helper()
	if zst == nil {
		return text
	}
	b, err := zstdDec.DecodeAll(zst, nil)
	if err != nil {
		t.Fatalf("decompress a stored payload: %v", err)
	}
	return string(b)
}

// jobTexts are the texts of the rows of q, which selects a job's
// coalesce(source_text, ”) and source_zst.
func jobTexts(t *testing.T, db *sql.DB, q string, args ...any) []string {
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
		out = append(out, unzst(t, zst, text))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
