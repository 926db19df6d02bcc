package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The dependency direction is part of the design (STYLE.md 8): main -> cmd
// -> extract/*, store/* -> schema. This test asks the go tool, so a stray
// import fails CI rather than a review.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	const mod = "github.com/invx/invx/"
	forbidden := map[string][]string{
		"schema":            {mod + "extract", mod + "store", mod + "cmd"},
		"store":             {mod + "extract", mod + "cmd", mod + "store/sqlite", mod + "store/postgres"},
		"extract":           {mod + "store/sqlite", mod + "store/postgres", mod + "cmd", "github.com/openai/", "github.com/anthropics/", "github.com/jackc/", "modernc.org/sqlite"},
		"extract/rules":     {mod + "extract/openai", mod + "extract/anthropic", mod + "store/sqlite", mod + "cmd"},
		"extract/openai":    {mod + "extract/anthropic", mod + "extract/rules", mod + "store/sqlite", mod + "cmd"},
		"extract/anthropic": {mod + "extract/openai", mod + "extract/rules", mod + "store/sqlite", mod + "cmd"},
		"extract/ollama":    {mod + "extract/openai", mod + "extract/rules", mod + "store/sqlite", mod + "cmd"},
		"extract/command":   {mod + "extract/openai", mod + "extract/rules", mod + "store/sqlite", mod + "cmd"},
		"extract/replay":    {mod + "extract/openai", mod + "extract/rules", mod + "store/sqlite", mod + "cmd"},
		"store/sqlite":      {mod + "extract", mod + "cmd", mod + "store/postgres"},
		"store/postgres":    {mod + "extract", mod + "cmd", mod + "store/sqlite"},
		"telemetry":         {mod + "store/sqlite", mod + "store/postgres", mod + "cmd"},
		"outbox":            {mod + "store/sqlite", mod + "store/postgres", mod + "cmd", mod + "extract/"},
		"eval":              {mod + "store/postgres", mod + "cmd", mod + "extract/openai", mod + "extract/anthropic"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if dep == strings.TrimSuffix(b, "/") || strings.HasPrefix(dep, b) && (strings.HasSuffix(b, "/") || strings.HasPrefix(dep, b+"/") || dep == b) {
					t.Errorf("%s must not depend on %s (found %s)", pkg, b, dep)
				}
			}
		}
	}
}
