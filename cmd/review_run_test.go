package cmd_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx": test databases on PostgreSQL

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/postgres"
	"github.com/invx/invx/store/sqlite"
)

// batchEnv is one database (a SQLite file or a fresh PostgreSQL database)
// and an input folder, driven through cmd.Main like the binary.
type batchEnv struct {
	t   *testing.T
	db  string
	in  string
	env map[string]string
}

// drivers are the store drivers a test runs on: SQLite always, PostgreSQL
// when INVX_TEST_POSTGRES names a server (CI always does).
func drivers(t *testing.T) []string {
	t.Helper()
	if os.Getenv("INVX_TEST_POSTGRES") != "" {
		return []string{"sqlite", "postgres"}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI must set INVX_TEST_POSTGRES (see .ci/postgres.sh)")
	}
	return []string{"sqlite"}
}

func newBatchEnv(t *testing.T, driver string) *batchEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &batchEnv{t: t, in: filepath.Join(tmp, "in"), db: filepath.Join(tmp, "invx.db")}
	if driver == "postgres" {
		e.db = freshPostgres(t)
	}
	if err := os.MkdirAll(e.in, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// freshPostgres creates an empty database on INVX_TEST_POSTGRES's server,
// dropped when the test ends, and returns its URL.
func freshPostgres(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("INVX_TEST_POSTGRES")
	adb, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adb.Close() })
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "invx_cmd_" + hex.EncodeToString(b[:])
	if _, err := adb.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adb.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func (e *batchEnv) write(name, text string) string {
	e.t.Helper()
	p := filepath.Join(e.in, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *batchEnv) invx(args ...string) result {
	e.t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string { return e.env[k] }}
	code := cmd.MainWith(context.Background(), f, append([]string{"--db", e.db}, args...))
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func (e *batchEnv) must(want int, args ...string) result {
	e.t.Helper()
	r := e.invx(args...)
	if r.code != want {
		e.t.Fatalf("invx %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

func (e *batchEnv) store() store.Store {
	e.t.Helper()
	var (
		st  store.Store
		err error
	)
	if strings.HasPrefix(e.db, "postgres://") {
		st, err = postgres.Open(context.Background(), e.db)
	} else {
		st, err = sqlite.Open(context.Background(), e.db)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	return st
}

// paths maps the tenant's job keys to their file names.
func (e *batchEnv) paths(st store.Store) map[string]string {
	e.t.Helper()
	jobs, err := st.ListJobs(context.Background(), &store.ListJobsParams{Tenant: "default"})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, j := range jobs {
		out[j.JobKey] = filepath.Base(j.SourcePath)
	}
	return out
}

// openReview lists the open review reasons as "file: reason".
func (e *batchEnv) openReview(st store.Store) []string {
	e.t.Helper()
	items, err := st.ListReview(context.Background(), &store.ListReviewParams{Tenant: "default"})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, filepath.Base(it.Path)+": "+it.Reason)
	}
	slices.Sort(out)
	return out
}

// committedEvents maps each file to the state of its invoice.committed
// event.
func (e *batchEnv) committedEvents(st store.Store) map[string]string {
	e.t.Helper()
	evs, err := st.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "default"})
	if err != nil {
		e.t.Fatal(err)
	}
	paths := e.paths(st)
	out := map[string]string{}
	for _, ev := range evs {
		if ev.Kind == store.EventCommitted {
			out[paths[ev.JobKey]] = ev.State
		}
	}
	return out
}

// runSummary is the part of invx run --json the review tests read.
type runSummary struct {
	Committed    int            `json:"committed"`
	Attempts     int            `json:"attempts"`
	ReviewOpened map[string]int `json:"review_opened"`
	Final        struct {
		Succeeded  int            `json:"succeeded"`
		Review     int            `json:"review"`
		ReviewOpen map[string]int `json:"review_open"`
	} `json:"final"`
}

func decodeSummary(t *testing.T, r result) runSummary {
	t.Helper()
	var s runSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, r.stdout)
	}
	return s
}

// nightlyInvoice is a complete English invoice the rules provider reads
// in full.
const nightlyInvoice = `Northwind Traders Ltd
12 Harbour Road, Bristol BS1 4DJ, United Kingdom
VAT Reg. No. GB 123 4567 89

INVOICE

Bill to:
Contoso Retail plc

Invoice No.: NW-2026-0117
Invoice date: 02/11/2026
Due date: 02/12/2026
PO Number: 4500012345

Description                     Qty    Unit price     Amount
Office chairs                     4        120.00     480.00
Desks                             2        310.00     620.00

Subtotal                                          1,100.00
VAT 20%                                             220.00
Total due                                     GBP 1,320.00
`

const nightlyCredit = `Formula Supplies Ltd
VAT No: GB987654321
Credit Note CN-7
Date: 2026-03-05
Ref invoice INV-99

Returned goods
1 Widget 1 -50.00 -50.00

Net: GBP -50.00
VAT 20%: GBP -10.00
Total credit: GBP -60.00
`

// writeNightly writes the nightly batch of issue 14: an invoice, its
// rescan (the same text plus a scanner's line), an invoice without a
// total and a credit note. Names sort in that order, which is the order
// one worker commits them in.
func (e *batchEnv) writeNightly() {
	e.write("a-invoice.txt", nightlyInvoice)
	e.write("b-rescan.txt", nightlyInvoice+"Scanned 2026-11-03 08:14 station 2\n")
	noTotal := strings.Replace(nightlyInvoice, "Total due                                     GBP 1,320.00\n", "", 1)
	noTotal = strings.Replace(noTotal, "NW-2026-0117", "NW-2026-0999", 1)
	if noTotal == nightlyInvoice {
		e.t.Fatal("no-total variant: replacement did not apply")
	}
	e.write("c-no-total.txt", noTotal)
	e.write("d-credit.txt", nightlyCredit)
}

// The nightly batch: the rescan and the missing total are committed but
// held for review, the run exits 3, a rerun commits nothing and still
// exits 3, and once a clerk has accepted the one and dismissed the other a
// rerun exits 0.
func TestNightlyBatchNeedsReviewUntilResolved(t *testing.T) {
	t.Parallel()
	for _, driver := range drivers(t) {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			e := newBatchEnv(t, driver)
			e.writeNightly()
			run := []string{"run", "--quiet", "--json", "--schema", "invoice-summary-v1", "--concurrency", "1", e.in}

			s := decodeSummary(t, e.must(3, run...))
			if s.Committed != 4 || s.Final.Review != 2 {
				t.Errorf("first run: committed %d, to review %d; want 4, 2", s.Committed, s.Final.Review)
			}
			wantOpen := map[string]int{"incomplete": 1, "possible_duplicate": 1}
			if diff := cmp.Diff(wantOpen, s.Final.ReviewOpen); diff != "" {
				t.Errorf("first run: open reasons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantOpen, s.ReviewOpened); diff != "" {
				t.Errorf("first run: reasons opened (-want +got):\n%s", diff)
			}

			st := e.store()
			wantItems := []string{"b-rescan.txt: possible_duplicate", "c-no-total.txt: incomplete"}
			if diff := cmp.Diff(wantItems, e.openReview(st)); diff != "" {
				t.Errorf("open review items (-want +got):\n%s", diff)
			}
			wantEvents := map[string]string{"a-invoice.txt": store.OutboxPending, "b-rescan.txt": store.OutboxHeld,
				"c-no-total.txt": store.OutboxHeld, "d-credit.txt": store.OutboxPending}
			if diff := cmp.Diff(wantEvents, e.committedEvents(st)); diff != "" {
				t.Errorf("invoice.committed event states (-want +got):\n%s", diff)
			}

			// A rerun finds everything committed and calls nobody, but
			// the batch still needs a clerk.
			s = decodeSummary(t, e.must(3, run...))
			if s.Committed != 0 || s.Attempts != 0 || s.Final.Review != 2 || len(s.ReviewOpened) != 0 {
				t.Errorf("rerun: committed %d, attempts %d, to review %d, opened %v; want 0, 0, 2, none",
					s.Committed, s.Attempts, s.Final.Review, s.ReviewOpened)
			}
			if diff := cmp.Diff(wantOpen, s.Final.ReviewOpen); diff != "" {
				t.Errorf("rerun: open reasons (-want +got):\n%s", diff)
			}
			r := e.must(3, "run", "--schema", "invoice-summary-v1", e.in)
			for _, want := range []string{"to review          2 (incomplete 1, possible_duplicate 1)",
				"2 document(s) need review (rejected 0, failed 0, held 0, incomplete 1, possible_duplicate 1): invx review"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("summary lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "Northwind") || strings.Contains(r.stderr, "NW-2026") {
				t.Errorf("summary shows invoice text:\n%s", r.stderr)
			}

			keys := map[string]string{}
			for k, p := range e.paths(st) {
				keys[p] = k
			}
			ctx := context.Background()
			if _, err := st.AcceptReview(ctx, &store.ReviewActionParams{Tenant: "default", JobKey: keys["b-rescan.txt"],
				Actor: "clerk", Note: "second delivery, paid once"}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DismissReview(ctx, &store.ReviewActionParams{Tenant: "default", JobKey: keys["c-no-total.txt"],
				Actor: "clerk", Note: "asked the supplier for a proper invoice"}); err != nil {
				t.Fatal(err)
			}
			s = decodeSummary(t, e.must(0, run...))
			if s.Final.Review != 0 || s.Final.Succeeded != 4 {
				t.Errorf("after review: to review %d, succeeded %d; want 0, 4", s.Final.Review, s.Final.Succeeded)
			}
			if got := e.openReview(st); len(got) != 0 {
				t.Errorf("open review items after accept and dismiss: %v", got)
			}
		})
	}
}
