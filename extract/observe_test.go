package extract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/invx/invx/extract"
)

// TestSkipReasonsComplete checks that SkipReasons names every Skip
// constant of the package: metrics keep the reason label to that list, so
// a reason added to discovery but not to it would be counted as "other"
// and never start at 0.
func TestSkipReasonsComplete(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Skip") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					consts = append(consts, v)
				}
			}
		}
	}
	if len(consts) == 0 {
		t.Fatal("no Skip constants found: the scan proves nothing")
	}
	got := extract.SkipReasons()
	for _, c := range consts {
		if !slices.Contains(got, c) {
			t.Errorf("SkipReasons lacks %q", c)
		}
	}
	if len(got) != len(consts) {
		t.Errorf("SkipReasons = %v, want exactly the Skip constants %v", got, consts)
	}
}

func TestGenAISystem(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{"openai": "openai", "anthropic": "anthropic", "ollama": "ollama",
		"rules": "", "command": "", "replay": "", "": ""} {
		if got := extract.GenAISystem(p); got != want {
			t.Errorf("GenAISystem(%q) = %q, want %q", p, got, want)
		}
	}
}
