package extract

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

var hostname = func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.ReplaceAll(h, "/", "_")
}()

// LocalOwner names a lease owner as host/pid/run, so that a later run on the
// same host can tell that the process holding a lease is gone.
func LocalOwner(runID string) string {
	return fmt.Sprintf("%s/%d/%s", hostname, os.Getpid(), runID)
}

// LocalOwnerAlive reports whether the owner could still be working: owners on
// other hosts, and owners it cannot parse, are assumed alive (their leases
// expire with time); a local owner is alive while its process exists. A
// reused pid only makes us wait for the lease to expire, never breaks the
// fence.
func LocalOwnerAlive(owner string) bool {
	host, rest, ok := strings.Cut(owner, "/")
	if !ok || host != hostname {
		return true
	}
	pidStr, _, _ := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(pidStr)
	if err != nil || pid <= 0 {
		return true
	}
	if pid == os.Getpid() {
		return true
	}
	return processAlive(pid)
}
