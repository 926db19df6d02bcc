//go:build !unix

package outbox

import "os/exec"

// setGroup keeps exec's default cancellation (kill the program itself).
func setGroup(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}
