package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"strings"

	"github.com/invx/invx/internal/einvoice"
	"github.com/invx/invx/internal/pdftext"
)

// Input formats stored on a job. The e-invoice formats are those of
// internal/einvoice (ubl-invoice, ubl-creditnote, cii, zugferd1).
const (
	FormatText = einvoice.FormatText
)

// SkipNotEInvoice: a .xml file that is not a UBL or CII e-invoice invx
// reads (another XML, a DOCTYPE, malformed XML). It is an invoice that went
// unprocessed as far as anyone knows, so it needs review.
const SkipNotEInvoice = "not_einvoice"

// input is what a reader makes of one file's bytes.
type input struct {
	text, digest, encoding, format string
}

// inputError is a reader's refusal: the skip reason and its one-line detail.
type inputError struct{ reason, detail string }

// reader turns the bytes of one file into a document. Readers are chosen
// by extension (inputReaders): a .pdf reader (text layer, or an embedded
// e-invoice) plugs in here.
type reader func(raw []byte, encoding string) (input, *inputError)

// inputReaders maps a lower-case extension to its reader; any other
// extension is read as text.
var inputReaders = map[string]reader{
	".xml": readXML,
	".pdf": readPDF,
}

// inputCaps are the size caps of the formats with a reader, instead of
// --max-bytes (which is about text): an e-invoice may carry its PDF
// rendering in base64, a PDF its images.
var inputCaps = map[string]int64{
	".xml": einvoice.MaxBytes,
	".pdf": pdftext.DefaultLimits.MaxBytes,
}

// DefaultIncludes are the file names taken when --include is not given:
// every extension with a reader, and text.
var DefaultIncludes = []string{"*.txt", "*.xml", "*.pdf"}

// readerFor returns the reader of a file name.
func readerFor(name string) reader {
	if r, ok := inputReaders[strings.ToLower(path.Ext(name))]; ok {
		return r
	}
	return readText
}

// readText decodes and normalises a text file; its digest is that of the
// normalised text, so the same invoice typed on two systems is one job.
func readText(raw []byte, encoding string) (input, *inputError) {
	utf, enc, err := Decode(raw, encoding)
	if err == nil {
		var text string
		if text, err = Normalize(utf); err == nil {
			if strings.TrimSpace(text) == "" {
				return input{}, &inputError{SkipEmpty, "no text"}
			}
			return input{text: text, digest: Digest(text), encoding: enc, format: FormatText}, nil
		}
	}
	return input{}, &inputError{decodeSkipReason(err, encoding), err.Error()}
}

// readXML takes a structured e-invoice. Its bytes are the document: the
// digest is sha256 of the file as it is (no text normalisation, which
// would merge two files a signature tells apart); the text stored and
// given to providers is the UTF-8 file with line ends normalised, which is
// what evidence is checked against. --encoding does not apply: XML states
// its own, and only UTF-8 is read.
func readXML(raw []byte, _ string) (input, *inputError) {
	text, err := Normalize(raw)
	if err != nil {
		return input{}, &inputError{decodeSkipReason(err, EncodingUTF8), err.Error()}
	}
	if strings.TrimSpace(text) == "" {
		return input{}, &inputError{SkipEmpty, "no text"}
	}
	format, err := einvoice.Detect(text)
	if err != nil {
		return input{}, &inputError{SkipNotEInvoice, err.Error()}
	}
	sum := sha256.Sum256(raw)
	return input{text: text, digest: hex.EncodeToString(sum[:]), encoding: DecodedUTF8, format: format}, nil
}

// Taken reports whether a file name is one discovery takes without an
// --include pattern (see DefaultIncludes).
func Taken(name string) bool { return includedAny("", filepath.Base(name)) }
