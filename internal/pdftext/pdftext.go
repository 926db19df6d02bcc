package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
)

// Limits bound what one Read may cost. A zero field takes its default.
type Limits struct {
	MaxBytes           int64         // file size; default 50 MiB
	MaxPages           int           // pages read; later pages are left out and Doc.Truncated set; default 200
	MaxAttachmentBytes int           // one embedded file; larger ones are left out; default 20 MiB
	Timeout            time.Duration // wall time for one document; default 60 s
}

// DefaultLimits are the limits a zero Limits stands for.
var DefaultLimits = Limits{
	MaxBytes:           50 << 20,
	MaxPages:           200,
	MaxAttachmentBytes: 20 << 20,
	Timeout:            60 * time.Second,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxBytes > 0 {
		d.MaxBytes = l.MaxBytes
	}
	if l.MaxPages > 0 {
		d.MaxPages = l.MaxPages
	}
	if l.MaxAttachmentBytes > 0 {
		d.MaxAttachmentBytes = l.MaxAttachmentBytes
	}
	if l.Timeout > 0 {
		d.Timeout = l.Timeout
	}
	return d
}

// Doc is what a PDF carries for invx.
type Doc struct {
	// Text is the pages' text laid out like `pdftotext -layout`, pages joined
	// with a form feed ("\f").
	Text string
	// Pages is the document's page count (all of them, even past MaxPages).
	Pages int
	// Truncated is set when pages past Limits.MaxPages were left out of Text.
	Truncated bool
	// Attachments are the embedded files by name (the document's EmbeddedFiles
	// and page file-attachment annotations); the caller picks the e-invoice.
	Attachments map[string][]byte
}

// Read extracts the text layer and the embedded files of the PDF in b.
//
// Errors: ErrTooLarge, ErrEncrypted (a password is needed to open it;
// permissions-only encryption is read), ErrMalformed, ErrTimeout, ctx's error,
// and ErrNoTextLayer, which comes with a non-nil Doc because a scanned PDF may
// still embed an e-invoice. Read never panics: a panic in the engine is
// returned as ErrMalformed.
func Read(ctx context.Context, b []byte, limits Limits) (doc *Doc, err error) {
	lim := limits.withDefaults()
	if int64(len(b)) > lim.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), lim.MaxBytes)
	}
	// PDFium finds a header anywhere in the first KiB, as readers do; with
	// none the bytes are not a PDF, and the engine need not start at all.
	if !bytes.Contains(b[:min(len(b), 1024)], []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: no %%PDF header", ErrMalformed)
	}
	// Started before the deadline: compiling the engine (once per process,
	// seconds when the disk cache is cold) is not this document's time.
	pool, err := engine()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	inst, err := instance(ctx, pool)
	if err != nil {
		return nil, timeoutError(ctx, lim, err)
	}

	type result struct {
		doc *Doc
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{nil, fmt.Errorf("%w: engine panic: %v", ErrMalformed, p)}
			}
		}()
		d, err := read(ctx, inst, b, lim)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		// A fresh instance per document: nothing a hostile file did survives it.
		_ = inst.Close()
		return r.doc, r.err
	case <-ctx.Done():
		// Kill interrupts the running WebAssembly call and discards the instance;
		// the goroutine then returns with an error into the buffered channel.
		_ = inst.Kill()
		return nil, timeoutError(ctx, lim, ctx.Err())
	}
}

// timeoutError names a spent deadline ErrTimeout; cancellation and other
// errors pass through.
func timeoutError(ctx context.Context, lim Limits, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w after %s", ErrTimeout, lim.Timeout)
	}
	return err
}

// read does the work on one engine instance; Read guards it.
func read(ctx context.Context, inst pdfium.Pdfium, b []byte, lim Limits) (*Doc, error) {
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &b})
	if err != nil {
		return nil, openError(err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: opened.Document})

	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
	if err != nil {
		return nil, fmt.Errorf("%w: count pages: %v", ErrMalformed, err)
	}
	doc := &Doc{Pages: count.PageCount}
	n := count.PageCount
	if n > lim.MaxPages {
		n, doc.Truncated = lim.MaxPages, true
	}
	pages := make([]string, 0, n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, err := pageText(inst, opened.Document, i)
		if err != nil {
			return nil, fmt.Errorf("%w: page %d: %v", ErrMalformed, i+1, err)
		}
		pages = append(pages, text)
	}
	doc.Text = strings.Join(pages, "\f")

	if doc.Attachments, err = attachments(inst, opened.Document, lim.MaxAttachmentBytes); err != nil {
		return nil, err
	}
	if strings.TrimSpace(strings.ReplaceAll(doc.Text, "\f", "")) == "" {
		return doc, ErrNoTextLayer
	}
	return doc, nil
}

// openError maps PDFium's load errors to ours.
func openError(err error) error {
	switch {
	case errors.Is(err, pdferrors.ErrPassword), errors.Is(err, pdferrors.ErrSecurity):
		return ErrEncrypted
	default:
		// ErrFormat, ErrFile and the rest all mean the same to a clerk.
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
}
