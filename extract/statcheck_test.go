package extract

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A file modified within the racy window of its read gets no stat: its
// next write could keep its size and time.
func TestSettledStat(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("alpha"), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	opts := DiscoverOptions{Encoding: "utf-8"}
	tests := []struct {
		name   string
		readAt time.Time
		want   bool
	}{
		{"same tick", mtime, false},
		{"inside the window", mtime.Add(racyWindow - time.Millisecond), false},
		{"settled", mtime.Add(racyWindow), true},
		{"clock behind the file", mtime.Add(-time.Hour), false},
	}
	for _, tc := range tests {
		st := settledStat(fi, readOpts(opts, 100), tc.readAt)
		if (st != nil) != tc.want {
			t.Errorf("%s: stat %+v, want one: %v", tc.name, st, tc.want)
			continue
		}
		if st != nil && (st.Size != 5 || st.MtimeNS != mtime.UnixNano() || st.ReadOpts != "encoding=utf-8;max_bytes=100") {
			t.Errorf("%s: stat %+v", tc.name, *st)
		}
	}
	if runtime.GOOS == "linux" && inode(fi) == 0 {
		t.Errorf("no inode on linux")
	}
}

// A walk writes each size limit's read options once and gives every file
// the string of its own limit: a text file and a PDF of one walk are
// recorded with different caps, so a change of either cap reads them again.
func TestReadOptsForKeepsEachLimit(t *testing.T) {
	t.Parallel()
	w := &discovery{opts: DiscoverOptions{Encoding: "latin1", MaxBytes: 1 << 20}}
	for _, p := range []string{"a.txt", "b.pdf", "c.txt", "d.xml", "e.pdf"} {
		limit := w.limit(p)
		if got, want := w.readOptsFor(limit), readOpts(w.opts, limit); got != want {
			t.Errorf("%s: read options %q, want %q", p, got, want)
		}
	}
	if len(w.ropts) != 3 {
		t.Errorf("%d limits written out, want 3 (text, PDF, XML): %v", len(w.ropts), w.ropts)
	}
}
