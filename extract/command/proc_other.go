//go:build !unix

package command

import (
	"os/exec"
	"runtime"
)

var isWindows = runtime.GOOS == "windows"

// setGroup keeps exec's default cancellation (kill the program itself):
// there are no unix process groups here.
func setGroup(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}
