package extract_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
)

// writeTree writes files (slash paths relative to a new temp dir) and
// returns the dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// discover runs Discover and returns what it took ("path digest-prefix")
// and what it skipped ("path reason"), relative to root, in walk order.
func discover(t *testing.T, root, target string, opts extract.DiscoverOptions) (found, skipped []string, err error) {
	t.Helper()
	rel := func(display string) string {
		r, rerr := filepath.Rel(root, display)
		if rerr != nil {
			t.Fatalf("display path %s outside %s", display, root)
		}
		return filepath.ToSlash(r)
	}
	err = extract.Discover(context.Background(), target, opts, func(f extract.Found) error {
		if f.Digest != extract.Digest(f.Text) {
			t.Errorf("%s: digest does not match its text", f.Path)
		}
		found = append(found, f.Path+" "+rel(f.Display))
		return nil
	}, func(s extract.Skipped) {
		skipped = append(skipped, rel(s.Display)+" "+s.Reason)
	})
	return found, skipped, err
}

// Discovery takes the readable text files in lexical order and names every
// other file with its reason; nothing outside the root is read.
func TestDiscover(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"a.txt":             "Invoice 1\r\n",
		"b/c.txt":           "Invoice 2\n",
		"b/notes.md":        "not an invoice",
		".hidden.txt":       "secret",
		".git/config.txt":   "x",
		"big.txt":           strings.Repeat("x", 200),
		"binary.txt":        "PDF\x00\x01",
		"latin1.txt":        "Caf\xe9\n",
		"empty.txt":         " \n\t\n",
		"z/deeper/last.txt": "Invoice 3\n",
	})
	outside := writeTree(t, map[string]string{"secret.txt": "outside the root"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	found, skipped, err := discover(t, root, root, extract.DiscoverOptions{MaxBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	// --encoding auto (the default) reads latin1.txt as Windows-1252.
	wantFound := []string{"a.txt a.txt", "b/c.txt b/c.txt", "latin1.txt latin1.txt", "z/deeper/last.txt z/deeper/last.txt"}
	if diff := cmp.Diff(wantFound, found); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	wantSkipped := []string{".git hidden", ".hidden.txt hidden", "b/notes.md not_included", "big.txt oversized",
		"binary.txt binary", "empty.txt empty", "link.txt not_regular"}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	// --encoding utf-8 refuses it.
	_, skipped, err = discover(t, root, root, extract.DiscoverOptions{MaxBytes: 100, Encoding: "utf-8"})
	if err != nil || !slices.Contains(skipped, "latin1.txt not_utf8") {
		t.Errorf("--encoding utf-8: skipped %v, err %v; want latin1.txt not_utf8", skipped, err)
	}

	// A single file is taken whatever --include says; a bad pattern, a
	// missing root and a cancelled context are errors.
	found, _, err = discover(t, root, filepath.Join(root, "b", "notes.md"), extract.DiscoverOptions{})
	if err != nil || len(found) != 1 || !strings.HasPrefix(found[0], "notes.md ") {
		t.Errorf("single file: found %v, err %v", found, err)
	}
	if _, _, err := discover(t, root, root, extract.DiscoverOptions{Include: "["}); err == nil || !strings.Contains(err.Error(), "--include") {
		t.Errorf("bad --include: err = %v", err)
	}
	if _, _, err := discover(t, root, filepath.Join(root, "nope"), extract.DiscoverOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing root: err = %v, want not exist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = extract.Discover(ctx, root, extract.DiscoverOptions{}, func(extract.Found) error { return nil }, func(extract.Skipped) {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled discovery: err = %v", err)
	}
	// found's error stops the walk and is returned as it is.
	stop := errors.New("stop")
	if err := extract.Discover(context.Background(), root, extract.DiscoverOptions{}, func(extract.Found) error { return stop },
		func(extract.Skipped) {}); !errors.Is(err, stop) {
		t.Errorf("found's error: %v", err)
	}
}

// Skipped files are counted in the run summary; files outside --include
// are not candidates, so SkippedTotal leaves them out.
func TestSkipCountsInTheSummary(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := newRunner(e, alwaysValid(), "default")
	ctx := context.Background()
	if err := r.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	for i, reason := range []string{extract.SkipBinary, extract.SkipNotIncluded, extract.SkipNotUTF8, extract.SkipBinary} {
		if err := r.Skip(ctx, extract.Skipped{Path: fmt.Sprintf("f%d.txt", i), Reason: reason}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := r.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if s.SkippedTotal() != 3 || s.Skipped[extract.SkipBinary] != 2 || s.FilesSeen != 3 || s.SkippedForReview != 3 {
		t.Fatalf("skipped total %d, by reason %v, files seen %d, for review %d; want 3, binary 2, 3, 3",
			s.SkippedTotal(), s.Skipped, s.FilesSeen, s.SkippedForReview)
	}
}

// A local owner names this host and a pid: alive while the process runs,
// gone after it exited; owners of other hosts or unparsable ones are
// assumed alive (their leases expire with time).
func TestLocalOwnerAlive(t *testing.T) {
	t.Parallel()
	me := extract.LocalOwner("run-1")
	if !strings.HasSuffix(me, "/"+itoa(os.Getpid())+"/run-1") {
		t.Fatalf("local owner %q does not end in /pid/run", me)
	}
	host, _, _ := strings.Cut(me, "/")
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		owner string
		want  bool
	}{
		{me, true},
		{host + "/" + itoa(c.Process.Pid) + "/run-2", false},
		{"other-host/1/run-3", true},
		{host + "/not-a-pid/run", true},
		{"no-slash", true},
	}
	for _, tt := range tests {
		if got := extract.LocalOwnerAlive(tt.owner); got != tt.want {
			t.Errorf("LocalOwnerAlive(%q) = %v, want %v", tt.owner, got, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDiscoverReadsEachFileFromItsFolder: files are opened through their
// folder, opened once for the files that follow it; a walk that leaves a
// folder for a subfolder and comes back, or moves to a sibling, reads each
// file's own bytes.
func TestDiscoverReadsEachFileFromItsFolder(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"top.txt":       "top",
		"a/1.txt":       "a one",
		"a/b/2.txt":     "a b two",
		"a/b/c/3.txt":   "a b c three",
		"a/z.txt":       "a z, after the subfolder",
		"b/1.txt":       "b one, same name as a/1.txt",
		"b/b/2.txt":     "b b two",
		"zz/deep/1.txt": "zz deep one",
	}
	root := writeTree(t, files)
	got := map[string]string{}
	err := extract.Discover(context.Background(), root, extract.DiscoverOptions{}, func(f extract.Found) error {
		got[f.Path] = f.Text
		return nil
	}, func(s extract.Skipped) { t.Errorf("%s skipped: %s %s", s.Path, s.Reason, s.Detail) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(files, got); diff != "" {
		t.Errorf("texts by path (-want +got):\n%s", diff)
	}
}
