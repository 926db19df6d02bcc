//go:build !unix

package command

import (
	"os/exec"
	"runtime"
)

var isWindows = runtime.GOOS == "windows"

// crashed: exit statuses carry no signal here.
func crashed(*exec.ExitError) bool { return false }
