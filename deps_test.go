package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/invx/invx"

// imports are one package's dependencies: module packages by their path
// inside the module ("extract/openai"; "" is main), others by full path.
type imports struct {
	mod, ext []string
}

// listImports asks go list once for every package of the module; format
// prints the package and the dependencies to collect, tab-separated.
func listImports(t *testing.T, format string) map[string]imports {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", format, "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	m := map[string]imports{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, "\t")
		var im imports
		for _, d := range strings.Fields(deps) {
			if r, ok := inModule(d); ok {
				im.mod = append(im.mod, r)
			} else {
				im.ext = append(im.ext, d)
			}
		}
		r, _ := inModule(pkg)
		m[r] = im
	}
	return m
}

// inModule returns p's path inside the module ("" for the root) and
// whether p is in the module at all.
func inModule(p string) (string, bool) {
	if p == mod {
		return "", true
	}
	return strings.CutPrefix(p, mod+"/")
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// subtree is the first-level package under dir that p belongs to
// ("extract/openai" for extract/openai/internal/wire), or "" when p is not
// strictly inside dir.
func subtree(p, dir string) string {
	rest, ok := strings.CutPrefix(p, dir+"/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return dir + "/" + name
}

// testHelper reports a helper package only tests may use: its name ends in
// "test" (storetest, extracttest, deadlinetest).
func testHelper(p string) bool {
	return strings.HasSuffix(p[strings.LastIndexByte(p, '/')+1:], "test")
}

// adapter is the provider adapter p belongs to (extract/<x>, extracttest
// and extract/internal, what the adapters share, excepted), or "".
func adapter(p string) string {
	if a := subtree(p, "extract"); a != "" && !testHelper(a) && a != "extract/internal" {
		return a
	}
	return ""
}

// driver is the store driver p belongs to (store/<x>, storetest and
// store/internal excepted), or "".
func driver(p string) string {
	if d := subtree(p, "store"); d != "" && !testHelper(d) && d != "store/internal" {
		return d
	}
	return ""
}

// sdkOwners names, per outside dependency prefix, the one package that
// wraps it: anyone else may reach it only through that package.
var sdkOwners = map[string]string{
	"github.com/openai/":     "extract/openai",
	"github.com/anthropics/": "extract/anthropic",
	"github.com/jackc/":      "store/postgres",
	"modernc.org/sqlite":     "store/sqlite",
}

// The dependency direction is part of the design (STYLE.md 5 and 8): main ->
// cmd -> extract/*, store/* -> schema; siblings never import each other;
// only cmd picks concrete adapters and drivers. The rules are derived from
// package paths rather than listed per package, so a new adapter, or a new
// stray import between two existing ones, is covered without editing this
// test.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	deps := listImports(t, "{{.ImportPath}}\t{{join .Deps \" \"}}")
	if _, ok := deps["extract/openai"]; !ok || len(deps) < 10 {
		t.Fatalf("go list found %d packages, extract/openai not among them: not this module's graph", len(deps))
	}
	for pkg, im := range deps {
		for _, dep := range im.mod {
			if why := forbidden(pkg, dep); why != "" {
				t.Errorf("%s must not depend on %s: %s", show(pkg), dep, why)
			}
		}
		for prefix, owner := range sdkOwners {
			if under(pkg, owner) || slices.Contains(im.mod, owner) {
				continue
			}
			if i := slices.IndexFunc(im.ext, func(d string) bool { return strings.HasPrefix(d, prefix) }); i >= 0 {
				t.Errorf("%s must not depend on %s: only %s wraps it", show(pkg), im.ext[i], owner)
			}
		}
	}
	// Tests may use the test helpers (extracttest runs the real pipeline on
	// SQLite), but an adapter's tests still never import a sibling adapter.
	tests := listImports(t, "{{.ImportPath}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}")
	for pkg, im := range tests {
		a := adapter(pkg)
		if a == "" {
			continue
		}
		for _, dep := range im.mod {
			if b := adapter(dep); b != "" && b != a {
				t.Errorf("tests of %s must not import sibling adapter %s", pkg, dep)
			}
		}
	}
}

// forbidden says why non-test code of pkg may not depend on dep, both in
// the module, or "" when it may.
func forbidden(pkg, dep string) string {
	// main and cmd choose adapters and drivers; so may the bench programs,
	// which are harnesses outside the product (bench/fakellm answers with
	// the rules extractor and a replay recording).
	picker := pkg == "" || under(pkg, "cmd") || under(pkg, "bench")
	switch {
	case testHelper(dep) && !testHelper(pkg):
		return "test helpers are for tests"
	case under(dep, "cmd") && pkg != "":
		return "only main imports cmd"
	case under(dep, "fixtures") && !under(pkg, "extract/replay"):
		return "fixtures are for tests (and the replay provider)"
	case under(pkg, "schema") && !under(dep, "schema"):
		return "schema imports neither extract nor store"
	case under(pkg, "store") && under(dep, "extract"):
		return "store never imports extract"
	case pkg == "store" && driver(dep) != "":
		return "the store contract never imports a driver"
	case driver(pkg) != "" && driver(dep) != "" && driver(dep) != driver(pkg):
		return "store drivers never import each other"
	case adapter(pkg) != "" && adapter(dep) != "" && adapter(dep) != adapter(pkg):
		return "an adapter never imports a sibling adapter"
	case adapter(dep) != "" && adapter(pkg) == "" && !picker:
		return "only cmd imports concrete adapters"
	case driver(dep) != "" && driver(pkg) == "" && !picker && !testHelper(pkg):
		return "only cmd imports store drivers (test helpers may, to run the real thing)"
	}
	return ""
}

// show names the module root as main.
func show(p string) string {
	if p == "" {
		return "main"
	}
	return p
}
