package pdftext

import "errors"

// The errors Read returns, each one line a clerk can act on. Test with errors.Is.
var (
	// ErrNoTextLayer: the pages carry no text (a scan); the document needs OCR.
	// Read still returns the Doc, whose Attachments may hold an e-invoice.
	ErrNoTextLayer = errors.New("no text layer (needs OCR)")
	// ErrEncrypted: the PDF needs a password to open.
	ErrEncrypted = errors.New("encrypted PDF (needs a password)")
	// ErrMalformed: the bytes are not a PDF this reader can parse.
	ErrMalformed = errors.New("malformed PDF")
	// ErrTooLarge: the file is over Limits.MaxBytes.
	ErrTooLarge = errors.New("PDF too large")
	// ErrTimeout: reading took longer than Limits.Timeout; the engine instance was killed.
	ErrTimeout = errors.New("PDF reading timed out")
)
