package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/invx/invx/internal/readbuf"
	"golang.org/x/text/unicode/norm"
)

// Transformation names what invx does to a document; it is part of the job key
// so that a later, different transformation of the same text is a new job.
const Transformation = "invoice-summary"

// NormalizeError says why a document cannot be normalised.
type NormalizeError struct {
	Reason string
	// Offset is the byte offset of the problem, -1 when not applicable.
	Offset int
}

func (e *NormalizeError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s at byte %d", e.Reason, e.Offset)
	}
	return e.Reason
}

// Normalize turns raw file bytes into the canonical text that is hashed,
// stored, sent to providers and searched for evidence: invalid UTF-8 and NUL
// bytes are rejected, a leading BOM dropped, CRLF and CR become LF, and the
// text is put in Unicode NFC so that the same invoice typed on two systems has
// one digest.
func Normalize(raw []byte) (string, error) {
	if i := bytes.IndexByte(raw, 0); i >= 0 {
		return "", &NormalizeError{Reason: "binary content (NUL byte)", Offset: i}
	}
	// Most invoices are ASCII, which is valid UTF-8, has no BOM and is its
	// own NFC (composition needs a combining mark, and none is ASCII): one
	// pass over the bytes instead of the UTF-8 check and NFC's own scan.
	ascii := isASCII(raw)
	if !ascii && !utf8.Valid(raw) {
		return "", &NormalizeError{Reason: "not valid UTF-8", Offset: invalidUTF8At(raw)}
	}
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
	s := string(raw)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if ascii {
		return s, nil
	}
	return norm.NFC.String(s), nil
}

// isASCII reports whether b holds only bytes below 0x80, eight at a time.
func isASCII(b []byte) bool {
	const high = 0x8080808080808080
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&high != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// Digest is the source digest: hex(sha256(normalised text)).
func Digest(text string) string {
	// The hash takes bytes through an interface, so []byte(text) was a
	// heap copy of every document; a pooled buffer takes the copy instead.
	bp := readbuf.Get()
	defer readbuf.Put(bp)
	*bp = append((*bp)[:0], text...)
	sum := sha256.Sum256(*bp)
	return hex.EncodeToString(sum[:])
}

// JobKey derives the operation identity of a document, exactly as DESIGN.md
// section 1 fixes it: hex(sha256(tenant NUL transformation NUL schema_version
// NUL source_digest)). The NUL separator is unambiguous because no field may
// contain a NUL (tenant ids, transformations and schema versions have
// restricted alphabets and the digest is hex), which JobKey enforces rather
// than assumes. Attempt and run ids are deliberately not part of it.
func JobKey(tenant, transformation, schemaVersion, sourceDigest string) (string, error) {
	fields := []string{tenant, transformation, schemaVersion, sourceDigest}
	for i, f := range fields {
		if f == "" || strings.IndexByte(f, 0) >= 0 {
			return "", fmt.Errorf("job key field %d: empty or contains NUL", i)
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(fields, "\x00")))
	return hex.EncodeToString(sum[:]), nil
}
