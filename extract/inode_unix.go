//go:build unix

package extract

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number, 0 when the system does not say.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // int32/int64 on some systems
	}
	return 0
}
