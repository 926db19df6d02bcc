package e2e_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// initLine is one package's line of GODEBUG=inittrace=1:
// "init github.com/invx/invx/extract/rules @11 ms, 125 ms clock, 31333808 bytes, 328295 allocs".
var initLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// maxInitBytes bounds what package initialisation may allocate: every
// command pays it, invx version, --help and each shell TAB included.
const maxInitBytes = 5 << 20

// TestStartupInitAllocations runs the commands that do no work with
// GODEBUG=inittrace=1 and checks what package init allocated, for the rules
// package (whose lexicons and regular expressions were once built at init:
// 31 MB, 328k allocations) and over all packages.
func TestStartupInitAllocations(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--help"}, {"__complete", "run", "--provider", ""}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout(t))
			defer cancel()
			cmd := exec.CommandContext(ctx, invxBin, args...)
			cmd.Env = append(env(), "GODEBUG=inittrace=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("invx %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			type pkg struct {
				name          string
				bytes, allocs int
			}
			var pkgs []pkg
			total := 0
			for _, m := range initLine.FindAllStringSubmatch(stderr.String(), -1) {
				b, _ := strconv.Atoi(m[2])
				a, _ := strconv.Atoi(m[3])
				pkgs = append(pkgs, pkg{m[1], b, a})
				total += b
			}
			sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
			var heaviest []string
			rules := -1
			for i, p := range pkgs {
				if i < 5 {
					heaviest = append(heaviest, fmt.Sprintf("%s %d bytes, %d allocs", p.name, p.bytes, p.allocs))
				}
				if p.name == "github.com/invx/invx/extract/rules" {
					rules = p.bytes
				}
			}
			t.Logf("init: %d packages, %d bytes; heaviest:\n  %s", len(pkgs), total, strings.Join(heaviest, "\n  "))
			switch {
			case rules < 0:
				t.Fatalf("no inittrace line for extract/rules in:\n%s", stderr.String())
			case rules >= maxInitBytes:
				t.Errorf("extract/rules init allocated %d bytes, want < %d: build its tables on first use (onFirstUse)", rules, maxInitBytes)
			}
			if total >= maxInitBytes {
				t.Errorf("package init allocated %d bytes in all, want < %d; heaviest:\n  %s", total, maxInitBytes, strings.Join(heaviest, "\n  "))
			}
		})
	}
}
