package cmd_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/cmd"
)

var update = flag.Bool("update", false, "rewrite golden files")

type result struct {
	code   int
	stdout string
	stderr string
}

// invx runs the CLI in-process with buffers, the way the binary would.
func invx(t *testing.T, tty bool, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: tty, ErrTTY: tty},
		Env: func(string) string { return "" }}
	code := cmd.MainWith(context.Background(), f, args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

var scrubs = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b[0-9a-f]{16}\b`), "RUNID"},
	{regexp.MustCompile(`wall time +\S+`), "wall time X"},
	{regexp.MustCompile(`"wall_ms":\d+`), `"wall_ms":0`},
}

func scrub(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp, "$TMP")
	for _, r := range scrubs {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// TestGolden runs each case directory under testdata: args (one per line;
// $TMP is a fresh directory, $IN a copy of testdata/input), and compares exit
// code, stdout and stderr with the golden files. -update rewrites them.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() || strings.HasPrefix(c.Name(), "input") { // input, input-v2: documents, not cases
			continue
		}
		name := c.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", name)
			rawArgs, err := os.ReadFile(filepath.Join(dir, "args"))
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			in := filepath.Join(tmp, "in")
			copyDir(t, filepath.Join("testdata", "input"), in)
			args := []string{"--db", filepath.Join(tmp, "invx.db")}
			for _, a := range strings.Split(strings.TrimRight(string(rawArgs), "\n"), "\n") {
				a = strings.ReplaceAll(a, "$TMP", tmp)
				a = strings.ReplaceAll(a, "$IN", in)
				args = append(args, a)
			}
			r := invx(t, false, args...)
			got := map[string]string{
				"exit":   strconv.Itoa(r.code) + "\n",
				"stdout": scrub(r.stdout, tmp),
				"stderr": scrub(r.stderr, tmp),
			}
			for _, f := range []string{"exit", "stdout", "stderr"} {
				path := filepath.Join(dir, f+".golden")
				if *update {
					if err := os.WriteFile(path, []byte(got[f]), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./cmd -run TestGolden -update)", err)
				}
				if diff := cmp.Diff(string(want), got[f]); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", f, diff)
				}
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestProgressBarOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		tty     bool
		extra   []string
		wantBar bool
	}{
		{"terminal", true, nil, true},
		{"piped", false, nil, false},
		{"quiet terminal", true, []string{"--quiet"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			in := filepath.Join(tmp, "in")
			copyDir(t, filepath.Join("testdata", "input"), in)
			args := append([]string{"--db", filepath.Join(tmp, "invx.db"), "run"}, tc.extra...)
			r := invx(t, tc.tty, append(args, in)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "extracting"); got != tc.wantBar {
				t.Errorf("progress bar shown = %v, want %v; stderr:\n%s", got, tc.wantBar, r.stderr)
			}
		})
	}
}

func TestShowAfterRun(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	in := filepath.Join(tmp, "in")
	copyDir(t, filepath.Join("testdata", "input"), in)
	db := filepath.Join(tmp, "invx.db")
	if r := invx(t, false, "--db", db, "run", "--quiet", in); r.code != 0 {
		t.Fatalf("run exit %d: %s", r.code, r.stderr)
	}
	for _, ref := range []string{"a.txt", filepath.Join(in, "b.txt")} {
		r := invx(t, false, "--db", db, "show", ref)
		if r.code != 0 {
			t.Fatalf("show %s: exit %d: %s", ref, r.code, r.stderr)
		}
		for _, want := range []string{"state           succeeded", "#1 succeeded", "result          id"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("show %s: missing %q in:\n%s", ref, want, r.stdout)
			}
		}
	}
	r := invx(t, false, "--db", db, "show", "--json", "a.txt")
	if r.code != 0 || !strings.Contains(r.stdout, `"invoice_number": "NW-2026-0117"`) {
		t.Errorf("show --json: exit %d\n%s", r.code, r.stdout)
	}
}
