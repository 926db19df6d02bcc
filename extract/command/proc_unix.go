//go:build unix

package command

import (
	"os/exec"
	"syscall"
)

const isWindows = false

// crashed reports whether the program died of a signal that means it
// crashed by itself (a bad memory access, an abort, an illegal
// instruction, ...): a bug in the extractor that a retry would hit again.
// Signals sent from outside (SIGKILL from the OOM killer or an operator,
// SIGTERM, SIGINT, SIGHUP) are not.
func crashed(e *exec.ExitError) bool {
	ws, ok := e.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGSYS, syscall.SIGTRAP:
		return true
	}
	return false
}
