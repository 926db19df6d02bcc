package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Skip reasons, as they appear in summaries.
const (
	SkipHidden      = "hidden"
	SkipNotRegular  = "not_regular"
	SkipOversized   = "oversized"
	SkipBinary      = "binary"
	SkipNotUTF8     = "not_utf8"
	SkipEmpty       = "empty"
	SkipNotIncluded = "not_included"
	SkipUnreadable  = "unreadable"
	SkipBadName     = "bad_name"
)

// DiscoverOptions control which files are taken.
type DiscoverOptions struct {
	// Include is a path.Match pattern applied to base names ("*.txt").
	Include string
	// MaxBytes caps a file's size; larger files are skipped.
	MaxBytes int64
}

// Found is one readable, normalised document.
type Found struct {
	// Path is relative to the walked root, slash separated.
	Path string
	// Display is the path as the user would type it (root joined with Path).
	Display string
	Text    string
	Digest  string
}

// Skipped is a file that was not taken, with the reason.
type Skipped struct {
	Display string
	Reason  string
	Detail  string
}

// Discover walks root and calls found for every document it takes and
// skipped for every file it passes over, in lexical order. It reads only
// through an os.Root, so nothing outside root is ever opened, whatever links
// or ".." the tree contains. root may also be a single regular file.
func Discover(ctx context.Context, root string, opts DiscoverOptions, found func(Found) error, skipped func(Skipped)) error {
	if opts.Include == "" {
		opts.Include = "*.txt"
	}
	if _, err := path.Match(opts.Include, "x"); err != nil {
		return fmt.Errorf("--include %q: %w", opts.Include, err)
	}
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("read %s: %w", root, unwrapPathError(err))
	}
	single := ""
	dir := root
	if !st.IsDir() {
		dir, single = filepath.Dir(root), filepath.Base(root)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, unwrapPathError(err))
	}
	defer r.Close()
	display := func(rel string) string {
		if single != "" {
			return root
		}
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	fsys := r.FS()
	start := "."
	if single != "" {
		start = single
	}
	return fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			skipped(Skipped{Display: display(p), Reason: SkipUnreadable, Detail: unwrapPathError(err).Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		name := d.Name()
		if !utf8.ValidString(p) {
			// A path is stored and shown; one that is not UTF-8 can be
			// neither faithfully.
			skipped(Skipped{Display: display(p), Reason: SkipBadName, Detail: "file name is not valid UTF-8"})
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") && p != single {
			skipped(Skipped{Display: display(p), Reason: SkipHidden})
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			skipped(Skipped{Display: display(p), Reason: SkipNotRegular, Detail: "not a regular file (" + d.Type().String() + ")"})
			return nil
		}
		if ok, _ := path.Match(opts.Include, name); !ok && p != single {
			skipped(Skipped{Display: display(p), Reason: SkipNotIncluded})
			return nil
		}
		raw, reason, detail := readCapped(r, p, opts.MaxBytes)
		if reason != "" {
			skipped(Skipped{Display: display(p), Reason: reason, Detail: detail})
			return nil
		}
		text, err := Normalize(raw)
		if err != nil {
			var ne *NormalizeError
			reason := SkipNotUTF8
			if errors.As(err, &ne) && strings.HasPrefix(ne.Reason, "binary") {
				reason = SkipBinary
			}
			skipped(Skipped{Display: display(p), Reason: reason, Detail: err.Error()})
			return nil
		}
		if strings.TrimSpace(text) == "" {
			skipped(Skipped{Display: display(p), Reason: SkipEmpty, Detail: "no text"})
			return nil
		}
		return found(Found{Path: p, Display: display(p), Text: text, Digest: Digest(text)})
	})
}

func readCapped(r *os.Root, p string, maxBytes int64) ([]byte, string, string) {
	f, err := r.Open(p)
	if err != nil {
		return nil, SkipUnreadable, unwrapPathError(err).Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, SkipUnreadable, unwrapPathError(err).Error()
	}
	if !st.Mode().IsRegular() {
		return nil, SkipNotRegular, "not a regular file"
	}
	if maxBytes > 0 && st.Size() > maxBytes {
		return nil, SkipOversized, fmt.Sprintf("%d bytes, over the %d byte limit (--max-bytes)", st.Size(), maxBytes)
	}
	// The limit also guards a file that grows while it is read.
	lim := io.Reader(f)
	if maxBytes > 0 {
		lim = io.LimitReader(f, maxBytes+1)
	}
	raw, err := io.ReadAll(lim)
	if err != nil {
		return nil, SkipUnreadable, unwrapPathError(err).Error()
	}
	if maxBytes > 0 && int64(len(raw)) > maxBytes {
		return nil, SkipOversized, fmt.Sprintf("over the %d byte limit (--max-bytes)", maxBytes)
	}
	return raw, "", ""
}

// unwrapPathError drops the *PathError's op and path, which the caller
// already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
