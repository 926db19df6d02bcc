package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

var peakSink [][]byte

// --memprofile-peak leaves a heap profile (gzipped pprof) once the live
// heap has grown while it watched.
func TestWatchPeakWritesProfile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "peak.pprof")
	stop, err := watchPeak(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 64; i++ {
		peakSink = append(peakSink, make([]byte, 64<<10))
	}
	runtime.GC() // the live heap is read as of the last GC
	time.Sleep(5 * peakPoll)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	peakSink = nil
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("peak profile: %d bytes, not a gzipped pprof", len(b))
	}
}
