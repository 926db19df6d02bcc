//go:build unix

package command

const isWindows = false
