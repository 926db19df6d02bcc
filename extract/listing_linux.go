//go:build linux

package extract

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// listingFS is the file system a walk lists folders in. A walk with no
// stat check (--rehash) lists them without a stat per entry (typedDirs);
// one with the stat check needs every entry's stat, which os.Root's own
// listing takes.
func listingFS(r *os.Root, statCheck bool) fs.FS {
	if statCheck {
		return r.FS()
	}
	return typedDirs{FS: r.FS(), r: r}
}

// typedDirs lists a folder with the entries' types its listing gives
// (d_type), and no stat of each. os.Root's listing stats every entry (an
// fstatat each, 10k of them for 10k files) so that Info needs no path
// lookup that could leave the root; a walk that reads every file wants
// only the types, and takes each file's stat from the descriptor it reads
// it through (readRaw). The folder is opened through the root, so it is
// inside it; its listing is read from a descriptor of its own, as a file
// outside any root, whose entries stat themselves (should Info be asked)
// by their path through the root again.
type typedDirs struct {
	fs.FS
	r *os.Root
}

// ReadDir implements fs.ReadDirFS as os.Root's FS does: the entries
// sorted by name, and an error as a *fs.PathError naming the folder.
func (t typedDirs) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := t.r.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	fd, err := dupFd(d)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	// Its errors name the folder as os.Root's listing does: f is named
	// by it.
	list, err := f.ReadDir(-1)
	for i, e := range list {
		list[i] = rootEntry{DirEntry: e, r: t.r, path: path.Join(name, e.Name())}
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, err
}

// rootEntry is an entry of a typedDirs listing: Info stats it through the
// root, never by a path outside it.
type rootEntry struct {
	fs.DirEntry
	r    *os.Root
	path string
}

func (e rootEntry) Info() (fs.FileInfo, error) {
	return e.r.Lstat(e.path)
}

// dupFd is a descriptor of its own for the folder d: the listing's file
// closes it, d closes its own.
func dupFd(d *os.File) (int, error) {
	sc, err := d.SyscallConn()
	if err != nil {
		return -1, err
	}
	// Close-on-exec from the start: a provider command started meanwhile
	// must not inherit it.
	fd, derr := -1, error(nil)
	if err := sc.Control(func(raw uintptr) {
		fd, derr = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, err
	}
	return fd, derr
}
