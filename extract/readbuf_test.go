package extract

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// readUpTo must read what io.ReadAll(io.LimitReader(r, limit)) reads,
// whatever the buffer it starts from and however the reader splits its
// data.
func TestReadUpToMatchesReadAll(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 300) // 4800 bytes
	readers := map[string]func(r io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for name, wrap := range readers {
		for _, n := range []int{0, 1, 511, 4800} {
			for _, limit := range []int64{-1, 0, 1, 100, int64(n), int64(n) + 1, 10000} {
				for _, capacity := range []int{0, 1, n, n + 1, 8192} {
					src := data[:n]
					want := src
					if limit >= 0 {
						want, _ = io.ReadAll(io.LimitReader(bytes.NewReader(src), limit))
					}
					got, err := readUpTo(wrap(bytes.NewReader(src)), make([]byte, 0, capacity), limit)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%s, %d bytes, limit %d, cap %d: read %d bytes (err %v), want %d",
							name, n, limit, capacity, len(got), err, len(want))
					}
				}
			}
		}
	}
	// An error other than EOF is returned with what was read.
	_, err := readUpTo(iotest.TimeoutReader(bytes.NewReader(data)), make([]byte, 0, 16), -1)
	if err != iotest.ErrTimeout {
		t.Errorf("err = %v, want the reader's", err)
	}
}

// Text files are read into pooled buffers: every document found must hold
// its own file's text, whatever sizes came before it (a buffer reused while
// a text still pointed into it would show here as another file's bytes).
func TestDiscoverPooledBuffersKeepTexts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sizes := []int{40000, 3, 17000, 1, 70000, 16 << 10, 5, (1 << 20) + 10, 2}
	want := map[string]string{}
	for i, n := range sizes {
		name := string(rune('a'+i)) + ".txt"
		body := strings.Repeat(string(rune('A'+i)), n)
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = body
	}
	var texts []Found
	err := Discover(t.Context(), root, DiscoverOptions{MaxBytes: 2 << 20}, func(f Found) error {
		texts = append(texts, f)
		return nil
	}, func(s Skipped) { t.Errorf("%s skipped: %s %s", s.Path, s.Reason, s.Detail) })
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != len(sizes) {
		t.Fatalf("found %d documents, want %d", len(texts), len(sizes))
	}
	for _, f := range texts {
		if f.Text != want[f.Path] || f.Digest != Digest(want[f.Path]) {
			t.Errorf("%s: text of %d bytes starting %q, want %d bytes of %q", f.Path, len(f.Text), f.Text[:1], len(want[f.Path]), want[f.Path][:1])
		}
	}
	// The cap still holds: a file one byte over it is oversized.
	_, _, _, reason, _ := readCapped(mustRoot(t, root), "a.txt", int64(sizes[0]-1), nil)
	if reason != SkipOversized {
		t.Errorf("file over the cap: reason %q, want %s", reason, SkipOversized)
	}
}

func mustRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
