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
		st := settledStat(fi, opts, 100, tc.readAt)
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
