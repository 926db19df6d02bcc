package cmd_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// envLiteral is a Go string literal that is exactly the name of a variable
// of a prefix invx owns or documents: how the code names a variable it
// reads (f.Env("OPENAI_API_KEY"), envOr(env, "INVX_DB", ...)), and USER
// (f.Env("USER"), who acts in review when --actor is not given). Variables
// invx sets for child programs are written "INVX_JOB_KEY=" + ..., which
// this does not match.
var envLiteral = regexp.MustCompile(`"((?:INVX|OPENAI|ANTHROPIC|OLLAMA|OTEL)_[A-Z0-9_]+|USER)"`)

// TestEnvironmentHelpListsEveryVariable greps the module's Go source (tests
// excluded) for the variables it reads and fails for any that invx help
// environment does not name.
func TestEnvironmentHelpListsEveryVariable(t *testing.T) {
	t.Parallel()
	read := map[string][]string{} // variable -> files
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envLiteral.FindAllStringSubmatch(string(src), -1) {
			// INVX_TEST_* configure the test suite, not invx.
			if !strings.HasPrefix(m[1], "INVX_TEST_") {
				read[m[1]] = append(read[m[1]], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk the module source: %v", err)
	}
	// The grep must see the variables known to be read, or it proves nothing.
	for _, known := range []string{"INVX_DB", "INVX_TENANT", "OPENAI_API_KEY", "OTEL_EXPORTER_OTLP_ENDPOINT", "USER"} {
		if read[known] == nil {
			t.Fatalf("the source grep did not find %s: fix envLiteral or the walk", known)
		}
	}

	r := invx(t, false, "help", "environment")
	if r.code != 0 || strings.Contains(r.stdout, "Unknown help topic") {
		t.Fatalf("invx help environment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var missing []string
	for name, files := range read {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(r.stdout) {
			missing = append(missing, name+" (read in "+strings.Join(files, ", ")+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("invx help environment does not list:\n  %s", strings.Join(missing, "\n  "))
	}
}

// TestVersionFlag: invx --version prints exactly what invx version prints.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	flag, sub := invx(t, false, "--version"), invx(t, false, "version")
	if flag.code != 0 || sub.code != 0 {
		t.Fatalf("exit codes: --version %d, version %d\n%s%s", flag.code, sub.code, flag.stderr, sub.stderr)
	}
	if flag.stdout != sub.stdout || !strings.HasPrefix(flag.stdout, "invx ") {
		t.Errorf("invx --version printed %q, invx version %q", flag.stdout, sub.stdout)
	}
}
