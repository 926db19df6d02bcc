package extract

import (
	"io/fs"
	"syscall"
)

// ctimeNS is the file's status change time in nanoseconds, 0 when the
// system does not say. Any write changes it, and so does setting the
// modification time back on purpose (cp -p, touch -d, rsync -t --inplace),
// which nothing but the kernel can undo.
func ctimeNS(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
