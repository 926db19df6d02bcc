package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// residentPeaks are the largest RssAnon and RssFile seen, in KiB.
type residentPeaks struct{ anonKiB, fileKiB float64 }

// sampleResident reads /proc/PID/status every 20 ms until stop is closed
// and returns the peaks (zero where /proc is missing: not Linux).
func sampleResident(pid int, stop <-chan struct{}) residentPeaks {
	var p residentPeaks
	path := fmt.Sprintf("/proc/%d/status", pid)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if anon, file, ok := readResident(path); ok {
			p.anonKiB, p.fileKiB = max(p.anonKiB, anon), max(p.fileKiB, file)
		}
		select {
		case <-stop:
			return p
		case <-t.C:
		}
	}
}

// readResident reads RssAnon and RssFile (KiB) from a status file.
func readResident(path string) (anon, file float64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found || (k != "RssAnon" && k != "RssFile") {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			continue
		}
		if k == "RssAnon" {
			anon, ok = n, true
		} else {
			file = n
		}
	}
	return anon, file, ok
}
