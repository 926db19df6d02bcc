//go:build unix

package replay

import (
	"io"
	"syscall"

	"github.com/invx/invx/internal/readbuf"
)

// readFile appends the file at path to b, at most limit bytes, as
// readbuf.ReadUpTo of os.Open's file would. It opens the file with the
// system call itself: os.Open also makes the descriptor non-blocking,
// registers it with the poller and sets a finalizer, half the cost of
// opening a recorded answer (one per replayed call), for a file read once
// from start to end.
func readFile(path string, b []byte, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return b, err
	}
	defer syscall.Close(fd)
	return readbuf.ReadUpTo(fdReader(fd), b, limit)
}

// fdReader reads a file descriptor; 0 bytes read is the end of the file.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
