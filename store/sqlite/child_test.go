package sqlite_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
)

// startChild starts this test binary again to run only test, with env
// (NAME=value) added, its stderr on ours. It returns the process, a writer
// to its stdin and its stdout line by line.
func startChild(t *testing.T, test, env string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	child.Env = append(os.Environ(), env)
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	return child, in, bufio.NewScanner(out)
}
