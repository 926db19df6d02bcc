//go:build linux

package extract

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The fast read is the os.Root read in fewer system calls: same bytes,
// same caps, the same stat recorded, and a file it cannot open (a link
// inside the root) is read the old way.
func TestReadRawMatchesRootRead(t *testing.T) {
	t.Parallel()
	root := writeRawTree(t, map[string]string{"a.txt": "Invoice 1\n", "sub/b.txt": strings.Repeat("b", 100), "sub/c.txt": strings.Repeat("c", 99)})
	if err := os.Symlink("a.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	w := &discovery{ctx: t.Context(), r: mustRoot(t, root), root: root}
	defer w.closeRaw()
	for _, tc := range []struct {
		path       string
		max        int64
		wantReason string
		wantLen    int
	}{
		{"a.txt", 0, "", 10},
		{"sub/b.txt", 99, SkipOversized, 0},
		{"sub/c.txt", 99, "", 99},
		{"sub/b.txt", 100, "", 100},
	} {
		raw, fi, _, reason, detail, ok := w.readRaw(tc.path, tc.max, nil)
		if !ok || reason != tc.wantReason || len(raw) != tc.wantLen {
			t.Errorf("%s cap %d: ok %v, reason %q (%s), %d bytes; want %q, %d bytes", tc.path, tc.max, ok, reason, detail, len(raw), tc.wantReason, tc.wantLen)
			continue
		}
		if reason != "" {
			continue
		}
		// The stat recorded with the text is the one the stat check will
		// compare with the listing's lstat on the next run.
		lst, err := os.Lstat(filepath.Join(root, filepath.FromSlash(tc.path)))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fileStat(fi, DiscoverOptions{}, 0), fileStat(lst, DiscoverOptions{}, 0); got != want {
			t.Errorf("%s: recorded stat %+v, lstat gives %+v", tc.path, got, want)
		}
	}
	if _, _, _, _, _, ok := w.readRaw("link.txt", 0, nil); ok {
		t.Errorf("link.txt: read by the fast read, which must leave links to the os.Root read")
	}
	// A link named as the single file to take is followed inside the root.
	var got []string
	err := Discover(t.Context(), filepath.Join(root, "link.txt"), DiscoverOptions{}, func(f Found) error {
		got = append(got, f.Path+" "+f.Text)
		return nil
	}, func(s Skipped) { t.Errorf("%s skipped: %s %s", s.Path, s.Reason, s.Detail) })
	if err != nil || len(got) != 1 || got[0] != "link.txt Invoice 1\n" {
		t.Errorf("single linked file: found %q, err %v", got, err)
	}
}

// A file that grew after its fstat is read on past the size the fstat
// gave, up to the cap: the one-read shortcut stops only at the end.
func TestReadFdReadsAFileThatGrew(t *testing.T) {
	t.Parallel()
	root := writeRawTree(t, map[string]string{"a.txt": strings.Repeat("a", 100)})
	fd, err := syscall.Open(filepath.Join(root, "a.txt"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	// As if the fstat had said 50 bytes, under a cap of 60 (limit 61).
	b, err := readFd(fd, make([]byte, 0, 51), 50, 61)
	if err != nil || len(b) != 61 {
		t.Errorf("read %d bytes, err %v; want 61 (the cap plus one, so the caller sees it oversized)", len(b), err)
	}
}

func writeRawTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// fdReader says io.EOF with the read that returns the fstat's size into a
// larger buffer, so readFd makes one read per file, not two; a buffer the
// read fills exactly cannot tell, and the next read hears the end.
func TestFdReaderEndsAtTheStatSize(t *testing.T) {
	t.Parallel()
	root := writeRawTree(t, map[string]string{"a.txt": strings.Repeat("a", 100)})
	for _, tc := range []struct {
		buf   int
		first error
	}{{200, io.EOF}, {100, nil}} {
		fd, err := syscall.Open(filepath.Join(root, "a.txt"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := &fdReader{fd: fd, size: 100}
		n, err := r.Read(make([]byte, tc.buf))
		if n != 100 || err != tc.first {
			t.Errorf("buffer %d: first read %d, %v; want 100, %v", tc.buf, n, err, tc.first)
		}
		if err == nil {
			if n, err := r.Read(make([]byte, tc.buf)); n != 0 || err != io.EOF {
				t.Errorf("buffer %d: second read %d, %v; want 0, EOF", tc.buf, n, err)
			}
		}
		syscall.Close(fd)
	}
}
