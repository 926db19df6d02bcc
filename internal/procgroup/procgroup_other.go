//go:build !unix

package procgroup

import "os/exec"

// Set keeps exec's default cancellation (kill the program itself): there
// are no unix process groups here.
func Set(*exec.Cmd) {}

// Kill does nothing without process groups.
func Kill(*exec.Cmd) {}

func killGroup(int) {}
