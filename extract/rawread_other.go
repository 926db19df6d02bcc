//go:build !linux

package extract

import "io/fs"

// rawFolder is unused off Linux: every file is read through the os.Root.
type rawFolder struct{}

// readRaw declines off Linux (ok false): the os.Root read is the one.
func (w *discovery) readRaw(string, int64, *[]byte) (raw []byte, fi fs.FileInfo, size int64, reason, detail string, ok bool) {
	return nil, nil, 0, "", "", false
}

func (w *discovery) closeRaw() {}
