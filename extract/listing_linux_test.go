//go:build linux

package extract

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listingTree is a folder of every kind of entry a walk meets: files in
// and below the top, a hidden folder, a link to a file inside, a link to
// a folder outside the root, a FIFO and an empty folder.
func listingTree(t *testing.T) string {
	t.Helper()
	root := writeRawTree(t, map[string]string{"b.txt": "Invoice 2\n", "a.txt": "Invoice 1\n", "sub/c.txt": "Invoice 3\n",
		".hidden/d.txt": "x", "notes.md": "not an invoice"})
	outside := t.TempDir()
	for _, l := range [][2]string{{"a.txt", "link.txt"}, {outside, "out"}} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// A walk without the stat check lists folders with the types the listing
// gives: the same entries, in the same order, of the same types as
// os.Root's listing, and Info, when asked, the same stat.
func TestTypedListingMatchesRootListing(t *testing.T) {
	t.Parallel()
	root := listingTree(t)
	r := mustRoot(t, root)
	type entry struct {
		Name string
		Type fs.FileMode
		Size int64
		Mode fs.FileMode
	}
	list := func(fsys fs.FS, dir string) []entry {
		t.Helper()
		es, err := fs.ReadDir(fsys, dir)
		if err != nil {
			t.Fatalf("list %s: %v", dir, err)
		}
		var out []entry
		for _, e := range es {
			fi, err := e.Info()
			if err != nil {
				t.Fatalf("%s/%s: info: %v", dir, e.Name(), err)
			}
			out = append(out, entry{e.Name(), e.Type(), fi.Size(), fi.Mode()})
		}
		return out
	}
	for _, dir := range []string{".", "sub", ".hidden", "empty"} {
		want, got := list(r.FS(), dir), list(listingFS(r, false), dir)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: typed listing (-root's +typed):\n%s", dir, diff)
		}
	}
	// A folder that is a link out of the root is refused, as by the root.
	if _, err := fs.ReadDir(listingFS(r, false), "out"); err == nil {
		t.Error("listed a folder outside the root through a link")
	}
	if _, err := fs.ReadDir(listingFS(r, false), "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: err %v, want not exist", err)
	}
}

// The typed listing stats nothing: an entry removed after the folder was
// listed has no stat to give (os.Root's listing, which stats every entry
// as it lists it, still gives the one it took). This is the fstatat per
// file the listing saves a --rehash walk.
func TestTypedListingStatsNoEntry(t *testing.T) {
	t.Parallel()
	root := writeRawTree(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	r := mustRoot(t, root)
	typed, err := fs.ReadDir(listingFS(r, false), ".")
	if err != nil {
		t.Fatal(err)
	}
	stated, err := fs.ReadDir(listingFS(r, true), ".")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := typed[0].Info(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("typed listing: a.txt's Info after its removal = %v, want not exist (the listing stated it)", err)
	}
	if _, err := stated[0].Info(); err != nil {
		t.Errorf("the stat check's listing: a.txt's Info after its removal = %v, want the stat taken while listing", err)
	}
}

// A walk with the stat check (every file unknown, so every file read) and
// one without it take the same files and pass over the same entries for
// the same reasons.
func TestWalkSameWithAndWithoutStatCheck(t *testing.T) {
	t.Parallel()
	root := listingTree(t)
	walk := func(known func(context.Context, []Candidate) ([]Known, error)) (found, skipped []string) {
		t.Helper()
		err := Discover(t.Context(), root, DiscoverOptions{Known: known}, func(f Found) error {
			found = append(found, f.Path+" "+f.Digest)
			return nil
		}, func(s Skipped) { skipped = append(skipped, s.Path+" "+s.Reason) })
		if err != nil {
			t.Fatal(err)
		}
		return found, skipped
	}
	asked := 0
	unknown := func(_ context.Context, c []Candidate) ([]Known, error) {
		asked += len(c)
		return make([]Known, len(c)), nil
	}
	f1, s1 := walk(nil)
	f2, s2 := walk(unknown)
	if diff := cmp.Diff(f1, f2); diff != "" {
		t.Errorf("found (-without +with the stat check):\n%s", diff)
	}
	if diff := cmp.Diff(s1, s2); diff != "" {
		t.Errorf("skipped (-without +with the stat check):\n%s", diff)
	}
	if len(f1) != 3 || asked != 3 {
		t.Errorf("found %v, stat check asked about %d; want the 3 invoices, each asked about", f1, asked)
	}
	for _, want := range []string{"link.txt not_regular", "pipe.txt not_regular", "notes.md not_included", ".hidden hidden"} {
		if !slices.Contains(s1, want) {
			t.Errorf("skipped %v: no %q", s1, want)
		}
	}
}
