//go:build unix

package extract_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // read the database file back

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/extract"
)

// TestMain lets this test binary stand in for invx: with INVX_TEST_CHILD
// set it runs the CLI on its arguments, with the test seam between listing
// and open armed, instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("INVX_TEST_CHILD") == "swap-fifo" {
		os.Exit(swapFIFOChild())
	}
	os.Exit(m.Run())
}

// swapFIFOChild runs invx with its arguments and, just before discovery
// opens INVX_TEST_SWAP (a path relative to the walked root), replaces that
// file with a FIFO that nobody will ever write to.
func swapFIFOChild() int {
	dir, name := os.Getenv("INVX_TEST_SWAP_DIR"), os.Getenv("INVX_TEST_SWAP")
	extract.SetBeforeOpen(func(rel string) {
		if rel != name {
			return
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			panic(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			panic(err)
		}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cmd.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// A listed .txt file replaced by a FIFO before it is opened must not hang
// the run: it is refused as not a regular file, named with its path, and
// the other files are committed. Before the fix, the open blocked forever.
func TestFIFOSwappedInAfterListingDoesNotHang(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "in")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"a.txt": "Acme Tools Ltd\nInvoice No.: AT-0001\nTotal due: EUR 12,50\n",
		"b.txt": "Birch Paper Ltd\nInvoice No.: BP-0002\nTotal due: EUR 1.234,56\n",
		"c.txt": "Cedar Ink Ltd\nInvoice No.: CI-0003\nTotal due: EUR 7,00\n",
	}
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "invx.db")

	// A hang must fail the test, not time the package out: give the child
	// most of what is left, generously.
	wait := 2 * time.Minute
	if d, ok := t.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0], "--db", db, "run", "--json", dir)
	c.Env = append(childEnv(), "INVX_TEST_CHILD=swap-fifo", "INVX_TEST_SWAP_DIR="+dir, "INVX_TEST_SWAP=b.txt")
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("invx run hung on a FIFO swapped in for b.txt (killed after %v)\nstderr:\n%s", wait, stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	// The FIFO is an invoice that was not processed: exit 3.
	if code != 3 {
		t.Errorf("exit %d, want 3\nstderr:\n%s", code, stderr.String())
	}
	if st, err := os.Lstat(filepath.Join(dir, "b.txt")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the seam did not swap b.txt for a FIFO (%v, %v)", st, err)
	}
	want := fmt.Sprintf("invx: skipped %s: not a regular file (p---------)", filepath.Join(dir, "b.txt"))
	if !strings.Contains(stderr.String(), want+"\n") {
		t.Errorf("stderr does not name the FIFO: want a line %q\n%s", want, stderr.String())
	}
	var sum struct {
		Status  string         `json:"status"`
		Skipped map[string]int `json:"skipped"`
		Commit  int            `json:"committed"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, stdout.String())
	}
	if sum.Status != "completed" || sum.Skipped["not_regular"] != 1 || sum.Commit != 2 {
		t.Errorf("summary %+v, want completed, 1 not_regular, 2 committed", sum)
	}
	sdb, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var results, jobs int
	if err := sdb.QueryRow(`SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM jobs)`).Scan(&results, &jobs); err != nil {
		t.Fatal(err)
	}
	if results != 2 || jobs != 2 {
		t.Errorf("%d results and %d jobs, want 2 and 2 (a.txt, c.txt)", results, jobs)
	}
}

// childEnv is the environment without INVX_ settings that would redirect
// the database or tenant.
func childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INVX_") {
			out = append(out, kv)
		}
	}
	return out
}
