package cmd_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// commandPaths lists every command under invx (without "invx"), read from
// the help of each: the tree as a user sees it.
func commandPaths(t *testing.T, parent []string) [][]string {
	t.Helper()
	r := invx(t, false, append(append([]string{}, parent...), "--help")...)
	if r.code != 0 {
		t.Fatalf("invx %s --help: exit %d\n%s", strings.Join(parent, " "), r.code, r.stderr)
	}
	var out [][]string
	in := false
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "Available Commands:"), strings.HasPrefix(line, "Additional Commands:"):
			in = true
			continue
		case in && strings.TrimSpace(line) == "":
			in = false
			continue
		case !in:
			continue
		}
		name := strings.Fields(line)[0]
		if name == "help" || name == "completion" {
			continue
		}
		p := append(append([]string{}, parent...), name)
		out = append(out, p)
		out = append(out, commandPaths(t, p)...)
	}
	return out
}

var numericFlag = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z-]+) (int|duration|float)\b`)

// Every usage error, whatever the command and whichever flag is wrong,
// exits 2 and ends with a Try: line for that same command, so the user is
// pointed at the command they typed, not at another one.
func TestEveryUsageErrorEndsWithTryForItsCommand(t *testing.T) {
	t.Parallel()
	paths := commandPaths(t, nil)
	if len(paths) < 15 {
		t.Fatalf("found only %d commands in the help: %v", len(paths), paths)
	}
	for _, p := range paths {
		name := strings.Join(p, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "invx.db")
			check := func(args ...string) {
				t.Helper()
				r := invx(t, false, append([]string{"--db", db}, args...)...)
				if r.code != 2 {
					return
				}
				lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, "Try: invx "+name) {
					t.Errorf("invx %s: exit 2 ends with %q, want a line starting \"Try: invx %s\"\n%s",
						strings.Join(args, " "), last, name, r.stderr)
				}
			}
			bad := append(append([]string{}, p...), "--no-such-flag")
			if r := invx(t, false, append([]string{"--db", db}, bad...)...); r.code != 2 {
				t.Errorf("an unknown flag: exit %d, want 2\n%s", r.code, r.stderr)
			}
			check(bad...)
			help := invx(t, false, append(append([]string{}, p...), "--help")...)
			for _, line := range strings.Split(help.stdout, "\n") {
				m := numericFlag.FindStringSubmatch(line)
				if m == nil || m[1] == "timeout" && len(p) == 0 {
					continue
				}
				check(append(append([]string{}, p...), "--"+m[1]+"=-1")...)
				check(append(append([]string{}, p...), "--"+m[1]+"=nonsense")...)
			}
		})
	}
}
