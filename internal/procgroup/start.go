package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Start starts the command build returns, building it again after an
// ETXTBSY: exec'ing a program that was just written fails while any process
// (often a sibling forked in the same instant) still holds it open for
// writing, and the condition clears within milliseconds. The caller calls
// Done after waiting for the command (see KillAll). A fresh exec.Cmd
// is built per try because one cannot be started twice.
func Start(build func() *exec.Cmd) (*exec.Cmd, error) {
	var err error
	for try := range 8 {
		cmd := build()
		if err = startTracked(cmd); err == nil {
			return cmd, nil
		}
		if !errors.Is(err, syscall.ETXTBSY) {
			return cmd, err
		}
		time.Sleep(time.Duration(try+1) * 5 * time.Millisecond)
	}
	return nil, err
}
