//go:build unix

package command

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

const isWindows = false

// setGroup starts the program as the leader of a new process group and
// makes cancellation kill the whole group, so children the program started
// (a pipeline in a script, a model server it spawned) die with it.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Called before the leader is reaped: the group id is still ours.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// killGroup kills what is left of the program's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
