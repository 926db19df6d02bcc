//go:build linux

package extract

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/invx/invx/internal/readbuf"
)

// rawFolder is the folder whose files the fast read opens, held open
// for all of them. It was opened through the walk's os.Root, so it is
// inside the root; a file is then opened in it by its one-component name
// with O_NOFOLLOW, which cannot leave it either.
type rawFolder struct {
	path string // relative to the walk's root, "." for its top
	f    *os.File
	fd   int
}

// readRaw reads the file at p as readCapped does, in the fewest system
// calls: openat, fstat, one read and close. An *os.File costs more on
// Linux: every open tries to add the descriptor to the poller (an
// epoll_ctl that fails for a regular file), and a read to EOF ends with a
// second read that returns nothing. ok is false when the file could not
// be opened this way (a link, a vanished file, an open error): the caller
// then reads it through the os.Root, which follows links inside the root
// and names the error, exactly as before.
func (w *discovery) readRaw(p string, maxBytes int64, buf *[]byte) (raw []byte, fi fs.FileInfo, size int64, reason, detail string, ok bool) {
	dir, name := path.Split(p)
	dir = path.Clean(dir) // "" -> "."
	if w.raw.f == nil || w.raw.path != dir {
		w.closeRaw()
		f, err := w.r.Open(dir)
		if err != nil {
			return nil, nil, 0, "", "", false
		}
		// Fd keeps the descriptor blocking: a directory is never in the
		// poller (its registration failed at the open).
		w.raw = rawFolder{path: dir, f: f, fd: int(f.Fd())}
	}
	fd, err := openat(w.raw.fd, name)
	if err != nil {
		return nil, nil, 0, "", "", false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return nil, nil, 0, SkipUnreadable, err.Error(), true
	}
	info := &statInfo{name: name, st: st}
	if !info.Mode().IsRegular() {
		return nil, nil, 0, SkipNotRegular, "not a regular file (" + info.Mode().Type().String() + ")", true
	}
	size = st.Size
	if maxBytes > 0 && size > maxBytes {
		return nil, nil, size, SkipOversized, fmt.Sprintf("%d bytes, over the %d byte limit (--max-bytes)", size, maxBytes), true
	}
	limit := int64(-1)
	if maxBytes > 0 {
		limit = maxBytes + 1
	}
	want := int(size + 1)
	var b []byte
	if buf != nil && cap(*buf) >= want {
		b = (*buf)[:0]
	} else {
		b = make([]byte, 0, want)
	}
	b, err = readFd(fd, b, size, limit)
	if buf != nil {
		*buf = b
	}
	if err != nil {
		return nil, nil, size, SkipUnreadable, err.Error(), true
	}
	if maxBytes > 0 && int64(len(b)) > maxBytes {
		return nil, nil, int64(len(b)), SkipOversized, fmt.Sprintf("over the %d byte limit (--max-bytes)", maxBytes), true
	}
	return b, info, int64(len(b)), "", "", true
}

// readFd appends what fd holds to b, at most limit bytes (no limit when
// negative), by readbuf's loop over a fdReader.
func readFd(fd int, b []byte, size, limit int64) ([]byte, error) {
	return readbuf.ReadUpTo(&fdReader{fd: fd, size: size}, b, limit)
}

// fdReader reads a raw descriptor. A read that asked for more than the
// file's size and returned exactly that size (from offset 0) met the end
// of a regular file: it says io.EOF then, so no second read is made to
// hear it. A file that grew after its fstat returns more and is read on
// to its end, as io.ReadAll would.
type fdReader struct {
	fd         int
	size, read int64
}

func (r *fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(r.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		r.read += int64(n)
		if n == 0 || r.read == r.size && n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
}

func openat(dirfd int, name string) (int, error) {
	for {
		fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	for {
		if err := syscall.Fstat(fd, st); err != syscall.EINTR {
			return err
		}
	}
}

func (w *discovery) closeRaw() {
	if w.raw.f != nil {
		w.raw.f.Close()
		w.raw = rawFolder{}
	}
}

// statInfo is an fs.FileInfo of a raw fstat, with the mode mapped as the
// os package maps it (so type strings in skip details are unchanged) and
// Sys the *syscall.Stat_t that inode and ctimeNS read.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
