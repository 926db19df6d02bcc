//go:build !unix

package replay

import (
	"os"

	"github.com/invx/invx/internal/readbuf"
)

// readFile appends the file at path to b, at most limit bytes.
func readFile(path string, b []byte, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return b, err
	}
	defer f.Close()
	return readbuf.ReadUpTo(f, b, limit)
}
