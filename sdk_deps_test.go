package main

import (
	"strings"
	"testing"
)

// testOnlySDKs are vendor SDKs that only tests may import: the adapters
// speak their wire formats with net/http and keep the SDKs as the
// reference their tests compare requests and answers with. Linked, their
// package initialisation alone kept about 13 MiB of the binary resident in
// every invx process (bench/README.md, "Memory").
var testOnlySDKs = []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"}

// TestNoVendorSDKLinked: no package of the module depends on a test-only
// SDK outside its tests, so the invx binary does not link it.
func TestNoVendorSDKLinked(t *testing.T) {
	t.Parallel()
	deps := listImports(t, "{{.ImportPath}}\t{{join .Deps \" \"}}")
	if _, ok := deps[""]; !ok {
		t.Fatal("go list did not list main: not this module's graph")
	}
	for pkg, im := range deps {
		for _, dep := range im.ext {
			for _, sdk := range testOnlySDKs {
				if strings.HasPrefix(dep, sdk) {
					t.Errorf("%s depends on %s: only tests may import it", show(pkg), dep)
				}
			}
		}
	}
}
