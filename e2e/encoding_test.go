package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invx/invx/internal/zsttest"
)

// muellerUTF8 is a German invoice; muellerCP1252 is the same text as a
// Windows accounting export writes it: Windows-1252, CRLF.
const muellerUTF8 = "Müller GmbH\nIndustriestraße 5, 70565 Stuttgart\n\nRechnung Nr. RE-2026-0042\n" +
	"Rechnungsdatum: 03.11.2026\nZahlbar bis: 17.11.2026\n\nGesamtbetrag 1.234,56 €\n"

var muellerCP1252 = []byte(strings.ReplaceAll("M\xfcller GmbH\nIndustriestra\xdfe 5, 70565 Stuttgart\n\nRechnung Nr. RE-2026-0042\n"+
	"Rechnungsdatum: 03.11.2026\nZahlbar bis: 17.11.2026\n\nGesamtbetrag 1.234,56 \x80\n", "\n", "\r\n"))

// A Windows-1252 invoice runs to a committed result with the right facts
// under the default --encoding auto; its UTF-8 twin is the same job (one
// digest: that of the normalised UTF-8 text); the decoding is on the job and
// shown by invx show. With --encoding utf-8 the same file is skipped for
// review instead.
func TestWindows1252InvoiceCommits(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "exports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a-mueller.txt"), muellerCP1252, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b-mueller-utf8.txt"), []byte(muellerUTF8), 0o644); err != nil {
		t.Fatal(err)
	}
	db := dbPath(t)
	r := invx(t, "--db", db, "run", "--json", dir)
	mustExit(t, r, 0)
	s := parseSummary(t, r)
	if s.NewJobs != 1 || s.Duplicates != 1 || s.Committed != 1 {
		t.Errorf("summary: new %d duplicates %d committed %d, want 1 1 1 (the twins are one job)", s.NewJobs, s.Duplicates, s.Committed)
	}
	sql := openDB(t, db)
	checkCommittedOnce(t, sql, 1)
	var text, enc, body string
	var textZst, bodyZst, digest []byte // digest as stored: 32 bytes (migration 015)
	if err := sql.QueryRow(`SELECT coalesce(j.source_text, ''), (SELECT x.zst FROM job_texts x WHERE x.job_id = j.id), j.source_encoding, j.source_digest, r.result, r.result_zst
		FROM jobs j JOIN results r ON r.job_id = j.id`).
		Scan(&text, &textZst, &enc, &digest, &body, &bodyZst); err != nil {
		t.Fatal(err)
	}
	text, body = zsttest.Unzst(t, textZst, text), zsttest.Unzst(t, bodyZst, body)
	if text != muellerUTF8 || enc != "windows-1252" {
		t.Errorf("job text %q encoding %q, want the UTF-8 text and windows-1252", text, enc)
	}
	wantCount(t, sql, 2, `SELECT count(*) FROM sources WHERE digest = ?`, digest)
	// The run used the default version, invoice-v2, whose facts are flat.
	var res struct {
		SchemaVersion string `json:"schema_version"`
		Supplier      string `json:"supplier_name"`
		Number        string `json:"invoice_number"`
		Currency      string `json:"currency"`
		TotalMinor    int64  `json:"total_minor"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	if res.SchemaVersion != "invoice-v2" || res.Supplier != "Müller GmbH" || res.Number != "RE-2026-0042" || res.Currency != "EUR" ||
		res.TotalMinor != 123456 {
		t.Errorf("result facts %+v, want invoice-v2: Müller GmbH, RE-2026-0042, EUR 123456", res)
	}

	r = invx(t, "--db", db, "show", "--json", filepath.Join(dir, "a-mueller.txt"))
	mustExit(t, r, 0)
	var shown struct {
		SourceEncoding string `json:"source_encoding"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || shown.SourceEncoding != "windows-1252" {
		t.Errorf("show --json: source_encoding %q (%v)\n%s", shown.SourceEncoding, err, r.stdout)
	}
	r = invx(t, "--db", db, "show", filepath.Join(dir, "a-mueller.txt"))
	if !strings.Contains(r.stdout, "\nencoding        windows-1252\n") {
		t.Errorf("show does not name the encoding:\n%s", r.stdout)
	}

	// Strict UTF-8: the same file is an invoice not processed.
	db2 := dbPath(t)
	r = invx(t, "--db", db2, "run", "--json", "--encoding", "utf-8", filepath.Join(dir, "a-mueller.txt"))
	mustExit(t, r, 3)
	if s := parseSummary(t, r); s.Skipped["not_utf8"] != 1 || s.Committed != 0 {
		t.Errorf("--encoding utf-8: skipped %v committed %d", s.Skipped, s.Committed)
	}
	wantCount(t, openDB(t, db2), 1, `SELECT count(*) FROM skipped_inputs WHERE path = 'a-mueller.txt' AND reason = 'not_utf8'`)
}
