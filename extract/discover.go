package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/invx/invx/internal/readbuf"
	"github.com/invx/invx/store"
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
	// SkipUndecodable: not valid in the --encoding asked for, or, with
	// auto, in none of the encodings it tries (--encoding utf-8 failures
	// stay not_utf8).
	SkipUndecodable = "undecodable"
)

// NeedsReview reports whether a file skipped for reason is an invoice that
// was not processed: its content, size or type kept it out, so a person
// must look (invx review). Hidden files, files outside --include, empty
// files and unrepresentable names are not.
func NeedsReview(reason string) bool {
	switch reason {
	case SkipNotUTF8, SkipUndecodable, SkipBinary, SkipOversized, SkipUnreadable, SkipNotRegular, SkipNotEInvoice,
		SkipNoTextLayer, SkipBadPDF:
		return true
	}
	return false
}

// DiscoverOptions control which files are taken.
type DiscoverOptions struct {
	// Include is a path.Match pattern applied to base names ("*.txt");
	// empty takes every readable input (DefaultIncludes).
	Include string
	// MaxBytes caps a text file's size; larger files are skipped. An
	// e-invoice (.xml) is capped at einvoice.MaxBytes instead: XRechnung
	// and Factur-X files often carry their PDF rendering in base64.
	MaxBytes int64
	// Encoding is how file bytes are decoded (see Encodings; "" is auto).
	Encoding string
	// Known, when set, is the stat check: it is asked, a batch at a time,
	// which candidate files are unchanged since they were read (same size,
	// modification time, inode and read options), and returns for each the
	// recorded digest (Known.Digest "" : read the file) and, when it can
	// tell, the enqueue outcome. An unchanged file is handed to found
	// unread (Found.Unread, Found.Settled). nil reads every file (--rehash).
	Known func(ctx context.Context, c []Candidate) ([]Known, error)
}

// Found is one readable, normalised document.
type Found struct {
	// Path is relative to the walked root, slash separated.
	Path string
	// Display is the path as the user would type it (root joined with Path).
	Display string
	Text    string
	Digest  string
	// Encoding is the decoding the text was read with (DecodedUTF8, ...).
	Encoding string
	// Format is the input format: FormatText, or the e-invoice syntax
	// (ubl-invoice, ubl-creditnote, cii, zugferd1). For an e-invoice the
	// digest is sha256 of the file's bytes, not of the text.
	Format string
	// Stat is the file's stat when it was read, recorded with its source
	// reference for the stat check (nil: unknown).
	Stat *store.FileStat
	// Unread: the stat check found the file unchanged, so it was not read;
	// Text, Encoding and Format are empty and Digest is the recorded one.
	Unread bool
	// Settled, for an unread file, is its enqueue outcome as the stat
	// check read it, when enqueueing it would write nothing (its job is
	// there, nothing to clear or release): Runner.Enqueue counts it
	// without a store call. nil: enqueue it.
	Settled *store.EnqueueResult
}

// Skipped is a file that was not taken, with the reason.
type Skipped struct {
	// Path is relative to the walked root, slash separated, as Found.Path.
	Path    string
	Display string
	Reason  string
	Detail  string
	// Size is the file's size in bytes when it is known (else 0).
	Size int64
}

// Discover walks root and calls found for every document it takes and
// skipped for every file it passes over, in lexical order. It reads only
// through an os.Root, so nothing outside root is ever opened, whatever links
// or ".." the tree contains. root may also be a single regular file.
//
// Discover stops with ctx's error as soon as ctx is cancelled, between two
// files; it never blocks on a file that is not regular (a FIFO swapped in
// after the directory was listed is opened without blocking and refused).
func Discover(ctx context.Context, root string, opts DiscoverOptions, found func(Found) error, skipped func(Skipped)) error {
	if _, err := path.Match(opts.Include, "x"); err != nil {
		return fmt.Errorf("--include %q: %w", opts.Include, err)
	}
	if !ValidEncoding(opts.Encoding) {
		return fmt.Errorf("--encoding %q: want one of %s", opts.Encoding, strings.Join(Encodings, ", "))
	}
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("read %s: %w", root, unwrapPathError(err))
	}
	w := &discovery{ctx: ctx, root: root, opts: opts, found: found, skipped: skipped}
	dir, start := root, "."
	if !st.IsDir() {
		dir, w.single = filepath.Dir(root), filepath.Base(root)
		start = w.single
	}
	if w.r, err = os.OpenRoot(dir); err != nil {
		return fmt.Errorf("open %s: %w", dir, unwrapPathError(err))
	}
	defer w.r.Close()
	defer w.closeFolder()
	defer w.closeRaw()
	if err := fs.WalkDir(listingFS(w.r, opts.Known != nil), start, w.visit); err != nil {
		return err
	}
	return w.check() // the files still queued for the stat check
}

// discovery is one walk of Discover: every read goes through r, so nothing
// outside the walked root is opened, whatever links the tree holds.
type discovery struct {
	ctx     context.Context
	r       *os.Root
	root    string // as the user named it
	single  string // the file name when root names one file
	opts    DiscoverOptions
	found   func(Found) error
	skipped func(Skipped)
	queue   []Candidate // waiting for the stat check (opts.Known)
	// folder is the folder (folderPath, relative to r) of the files being
	// read, opened once under r for all of them (openIn).
	folder     *os.Root
	folderPath string
	raw        rawFolder        // the folder the fast read opens files in (readRaw)
	ropts      map[int64]string // readOptsFor's strings by size limit
}

// openIn is the root to open the file at p through, and its name there.
// os.Root opens a path one component at a time (an openat and a close per
// folder on the way), so a file's own folder is opened once, as a root of
// its own under r, and each of its files costs one openat: two system calls
// a file fewer on a nested tree. The folder is one r held when it was
// opened; what it holds is read through it as through r (no link leads
// out of it).
func (w *discovery) openIn(p string) (*os.Root, string, error) {
	dir, name := path.Split(p)
	if dir == "" {
		return w.r, p, nil
	}
	dir = dir[:len(dir)-1]
	if w.folder == nil || w.folderPath != dir {
		w.closeFolder()
		sub, err := w.r.OpenRoot(dir)
		if err != nil {
			return nil, "", err
		}
		w.folder, w.folderPath = sub, dir
	}
	return w.folder, name, nil
}

func (w *discovery) closeFolder() {
	if w.folder != nil {
		w.folder.Close()
		w.folder, w.folderPath = nil, ""
	}
}

func (w *discovery) display(rel string) string {
	if w.single != "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

func (w *discovery) skip(p, reason, detail string, size int64) {
	w.skipped(Skipped{Path: p, Display: w.display(p), Reason: reason, Detail: detail, Size: size})
}

// visit decides, from the name and type alone, whether an entry is passed
// over (and whether its whole folder is), then reads what is left.
func (w *discovery) visit(p string, d fs.DirEntry, err error) error {
	if cerr := w.ctx.Err(); cerr != nil {
		return cerr
	}
	passOver := func(reason, detail string) error {
		w.skip(p, reason, detail, 0)
		if d != nil && d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	switch {
	case err != nil:
		return passOver(SkipUnreadable, unwrapPathError(err).Error())
	case p == ".":
		return nil
	case !utf8.ValidString(p):
		// A path is stored and shown; one that is not UTF-8 can be
		// neither faithfully.
		return passOver(SkipBadName, "file name is not valid UTF-8")
	case strings.HasPrefix(d.Name(), ".") && p != w.single:
		return passOver(SkipHidden, "")
	case d.IsDir():
		return nil
	case !includedAny(w.opts.Include, d.Name()) && p != w.single:
		// --include first: a link or socket that was never a candidate is
		// not an invoice that went missing.
		return passOver(SkipNotIncluded, "")
	case !d.Type().IsRegular():
		return passOver(SkipNotRegular, "not a regular file ("+d.Type().String()+")")
	}
	if w.opts.Known != nil {
		return w.candidate(p, d)
	}
	return w.read(p)
}

// limit is the size cap of the file at p: --max-bytes, or its input's own.
func (w *discovery) limit(p string) int64 {
	if c, ok := inputCaps[strings.ToLower(path.Ext(p))]; ok {
		return c
	}
	return w.opts.MaxBytes
}

// read takes one candidate file: capped read, decoding, normalisation.
func (w *discovery) read(p string) error {
	read := readerFor(p)
	limit := w.limit(p)
	// A text file's bytes end up copied into its string (Normalize), so
	// they are read into a buffer the next file reuses. The other readers
	// may keep their input, and get bytes of their own.
	var buf *[]byte
	if _, special := inputReaders[strings.ToLower(path.Ext(p))]; !special {
		buf = readbuf.Get()
		defer readbuf.Put(buf)
	}
	if beforeOpen != nil {
		beforeOpen(p)
	}
	raw, fi, size, reason, detail, ok := w.readRaw(p, limit, buf)
	if !ok {
		if r, name, err := w.openIn(p); err != nil {
			reason, detail = SkipUnreadable, unwrapPathError(err).Error()
		} else {
			raw, fi, size, reason, detail = readCapped(r, name, limit, buf)
		}
	}
	if reason != "" {
		w.skip(p, reason, detail, size)
		return nil
	}
	in, ierr := read(raw, w.opts.Encoding)
	if ierr != nil {
		w.skip(p, ierr.reason, ierr.detail, size)
		return nil
	}
	return w.found(Found{Path: p, Display: w.display(p), Text: in.text, Digest: in.digest, Encoding: in.encoding, Format: in.format,
		Stat: settledStat(fi, w.readOptsFor(limit), time.Now())})
}

// includedAny is Included for the --include pattern, or, when none was
// given, for any of DefaultIncludes.
func includedAny(pattern, name string) bool {
	if pattern != "" {
		return Included(pattern, name)
	}
	// Every default is "*.ext": the name's extension decides, compared
	// without regard to case as Included does, with no pattern matching
	// per file (a no-op rerun of a large folder is little more than this
	// walk).
	ext := path.Ext(name)
	for _, p := range DefaultIncludes {
		if strings.EqualFold(ext, p[1:]) {
			return true
		}
	}
	return false
}

// decodeSkipReason names the skip reason of a Decode or Normalize error.
func decodeSkipReason(err error, enc string) string {
	var ne *NormalizeError
	switch {
	case errors.As(err, &ne) && strings.HasPrefix(ne.Reason, "binary"):
		return SkipBinary
	case enc == EncodingUTF8:
		return SkipNotUTF8
	default:
		return SkipUndecodable
	}
}

// Included reports whether a base name matches the --include pattern. The
// extension is compared without regard to case, so "INVOICE_001.TXT" is
// taken by "*.txt" as Windows and many scanners name files.
func Included(pattern, name string) bool {
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	pext, next := path.Ext(pattern), path.Ext(name)
	if pext == "" || next == "" {
		return false
	}
	ok, _ := path.Match(strings.TrimSuffix(pattern, pext)+strings.ToLower(pext), strings.TrimSuffix(name, next)+strings.ToLower(next))
	return ok
}

// beforeOpen, when set by a test, runs between the listing of a file and its
// open: the window in which a file can be swapped for a FIFO.
var beforeOpen func(rel string)

// readCapped reads one listed file, opened as name in r. The listing's type may be stale (the
// file can be replaced in between), so the file is opened without blocking
// (opening a FIFO for reading would otherwise wait for a writer forever)
// and the type is checked again on the open descriptor before any read.
//
// fi is the file's stat before the read: recorded for the stat check, it
// describes these bytes or an older version (a file written during the
// read then differs from it on the next run, and is read again).
//
// buf, when not nil, is a buffer raw may be read into (and *buf is set to
// it); nil reads into a new slice.
func readCapped(r *os.Root, name string, maxBytes int64, buf *[]byte) (raw []byte, fi os.FileInfo, size int64, reason, detail string) {
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, 0, SkipUnreadable, unwrapPathError(err).Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, 0, SkipUnreadable, unwrapPathError(err).Error()
	}
	if !st.Mode().IsRegular() {
		return nil, nil, 0, SkipNotRegular, "not a regular file (" + st.Mode().Type().String() + ")"
	}
	size = st.Size()
	if maxBytes > 0 && size > maxBytes {
		return nil, nil, size, SkipOversized, fmt.Sprintf("%d bytes, over the %d byte limit (--max-bytes)", size, maxBytes)
	}
	// The limit also guards a file that grows while it is read. The
	// buffer starts at the file's size, plus one byte for the read that
	// finds the end: io.ReadAll grew one from 512 bytes, a copy and a
	// read call per doubling.
	limit := int64(-1)
	if maxBytes > 0 {
		limit = maxBytes + 1
	}
	want := int(size + 1) // at most the limit: larger files were skipped above
	var b []byte
	if buf != nil && cap(*buf) >= want {
		b = (*buf)[:0]
	} else {
		b = make([]byte, 0, want)
	}
	raw, err = readbuf.ReadUpTo(f, b, limit)
	if buf != nil {
		*buf = raw
	}
	if err != nil {
		return nil, nil, size, SkipUnreadable, unwrapPathError(err).Error()
	}
	if maxBytes > 0 && int64(len(raw)) > maxBytes {
		return nil, nil, int64(len(raw)), SkipOversized, fmt.Sprintf("over the %d byte limit (--max-bytes)", maxBytes)
	}
	return raw, st, int64(len(raw)), "", ""
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
