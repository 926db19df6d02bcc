package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run --enqueue-only commits nothing; invx work then processes the queue,
// and its metrics land in the textfile.
func TestEnqueueOnlyThenWork(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	db := filepath.Join(tmp, "invx.db")
	r := invx(t, false, "--db", db, "run", "--enqueue-only", "--json", "--quiet", in)
	if r.code != 0 || !strings.Contains(r.stdout, `"committed":0`) || !strings.Contains(r.stdout, `"new_jobs":2`) {
		t.Fatalf("enqueue-only: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	prom := filepath.Join(tmp, "invx.prom")
	r = invx(t, false, "--db", db, "work", "--json", "--quiet", "--metrics-file", prom)
	if r.code != 0 || !strings.Contains(r.stdout, `"committed":2`) {
		t.Fatalf("work: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `invx_commits_total{schema_version="invoice-v2",tenant="default"} 2`) {
		t.Errorf("metrics file lacks the commits:\n%s", b)
	}
	// Nothing left: a second worker finds an empty queue.
	r = invx(t, false, "--db", db, "work", "--all-tenants", "--json", "--quiet")
	if r.code != 0 || !strings.Contains(r.stdout, `"attempts":0`) {
		t.Fatalf("second work: exit %d\n%s", r.code, r.stdout)
	}
}
