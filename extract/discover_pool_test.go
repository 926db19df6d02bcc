package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
