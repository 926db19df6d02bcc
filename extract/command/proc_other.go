//go:build !unix

package command

import "runtime"

var isWindows = runtime.GOOS == "windows"
