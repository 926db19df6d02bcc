package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"testing"
)

// The suite digest covers every text and expectation by name and content,
// independently of the order they are read: the same files give the same
// digest, a changed byte, a renamed file or an extra document another one.
func TestSuiteDigest(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		"a.txt":             "Acme Ltd\nInvoice 1\n",
		"a.expect.json":     `{"supplier_name": "Acme Ltd"}`,
		"sub/b.txt":         "Beta GmbH\n",
		"sub/b.expect.json": `{}`,
		"README.md":         "not part of the suite",
	}
	digest := func(files map[string]string) string {
		t.Helper()
		s, err := Load(context.Background(), writeSuite(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return s.Digest
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range base {
			if a != k {
				m[a] = b
			}
		}
		if v != "" {
			m[k] = v
		}
		return m
	}
	d := digest(base)
	// Computed by hand: one line per file, sorted by name.
	line := func(name, content string) string {
		c := sha256.Sum256([]byte(content))
		return name + "\x00" + hex.EncodeToString(c[:]) + "\n"
	}
	h := sha256.Sum256([]byte(line("a.expect.json", base["a.expect.json"]) + line("a.txt", base["a.txt"]) +
		line("sub/b.expect.json", base["sub/b.expect.json"]) + line("sub/b.txt", base["sub/b.txt"])))
	if want := "sha256:" + hex.EncodeToString(h[:]); d != want {
		t.Fatalf("digest %s, want %s", d, want)
	}
	if again := digest(base); again != d {
		t.Errorf("same files, digest %s then %s", d, again)
	}
	if got := digest(with("README.md", "changed, still not part of the suite")); got != d {
		t.Errorf("a file outside the suite changed the digest")
	}
	renamed := with("sub/b.txt", "")
	renamed["sub/c.txt"], renamed["sub/c.expect.json"] = base["sub/b.txt"], base["sub/b.expect.json"]
	delete(renamed, "sub/b.expect.json")
	for name, files := range map[string]map[string]string{
		"a changed text":        with("a.txt", "Acme Ltd\nInvoice 2\n"),
		"a changed expectation": with("a.expect.json", `{"supplier_name": "Acme"}`),
		"a renamed document":    renamed,
		"an extra document":     with("c.txt", "Gamma\n"),
	} {
		if name == "an extra document" {
			files["c.expect.json"] = `{}`
		}
		if got := digest(files); got == d {
			t.Errorf("%s: digest unchanged", name)
		}
	}
}

func TestVCSRevision(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"}}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"recorded", bi, true, "0123abcd"},
		{"not recorded", &debug.BuildInfo{}, true, "unknown"},
		{"no build info", nil, false, "unknown"},
	} {
		if got := vcsRevision(tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
