//go:build !linux

package extract

import (
	"io/fs"
	"os"
)

// listingFS is os.Root's own off Linux (see listing_linux.go).
func listingFS(r *os.Root, _ bool) fs.FS {
	return r.FS()
}
