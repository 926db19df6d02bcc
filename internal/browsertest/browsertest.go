// Package browsertest finds the headless browser the browser tests drive.
package browsertest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of chromium, or skips the test: only when it is
// missing and the test does not run in CI (CI installs it, see .ci/run);
// under CI a missing browser fails the test.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "" {
		t.Skip("chromium is not installed (apt-get install chromium); the browser tests run in CI")
	}
	t.Fatal("chromium is not installed, and CI is set: .ci/run installs it")
	return ""
}
