package extract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Encodings accepted by --encoding.
const (
	EncodingAuto        = "auto"
	EncodingUTF8        = "utf-8"
	EncodingWindows1252 = "windows-1252"
	EncodingISO88591    = "iso-8859-1"
	EncodingUTF16       = "utf-16"
)

// Names of the decoding a document was read with, as recorded on its job.
// UTF-16 names its byte order, which the BOM (or its absence) decided.
const (
	DecodedUTF8        = "utf-8"
	DecodedUTF16LE     = "utf-16le"
	DecodedUTF16BE     = "utf-16be"
	DecodedWindows1252 = "windows-1252"
	DecodedISO88591    = "iso-8859-1"
)

// Encodings lists the --encoding values, for usage messages.
var Encodings = []string{EncodingAuto, EncodingUTF8, EncodingWindows1252, EncodingISO88591, EncodingUTF16}

// ValidEncoding reports whether enc is an --encoding value ("" is auto).
func ValidEncoding(enc string) bool {
	if enc == "" {
		return true
	}
	for _, e := range Encodings {
		if e == enc {
			return true
		}
	}
	return false
}

// Decode turns a file's bytes into UTF-8 under enc (see Encodings) and names
// the decoding it used. auto keeps valid UTF-8 as it is, decodes UTF-16 that
// starts with a byte-order mark, and reads anything else as Windows-1252,
// which is what Windows accounting exports write. The result still goes
// through Normalize, so the digest is that of the normalised UTF-8 text
// whatever the file's encoding: a Windows-1252 file and its UTF-8 twin are
// one document.
//
// A *NormalizeError says why the bytes cannot be decoded: a NUL byte outside
// UTF-16 (binary content), invalid UTF-8 under utf-8, a byte Windows-1252
// leaves undefined, a control byte in a file that is not UTF-8 (binary
// content read as text), or malformed UTF-16. Offsets are in the file.
func Decode(raw []byte, enc string) ([]byte, string, error) {
	switch enc {
	case "", EncodingAuto:
		if utf8.Valid(raw) {
			return raw, DecodedUTF8, nil
		}
		if hasUTF16BOM(raw) {
			return decodeUTF16(raw)
		}
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			return nil, "", &NormalizeError{Reason: "binary content (NUL byte)", Offset: i}
		}
		// A file that is not UTF-8 and holds control bytes is far more
		// likely binary than a legacy export: do not guess it into text.
		if i := controlByte(raw); i >= 0 {
			return nil, "", &NormalizeError{Reason: fmt.Sprintf("binary content (control byte 0x%02x), not UTF-8", raw[i]), Offset: i}
		}
		return decodeCharmap(raw, charmap.Windows1252, DecodedWindows1252)
	case EncodingUTF8:
		// Normalize checks it, with the offset of the first bad byte.
		return raw, DecodedUTF8, nil
	case EncodingWindows1252:
		return decodeCharmap(raw, charmap.Windows1252, DecodedWindows1252)
	case EncodingISO88591:
		return decodeCharmap(raw, charmap.ISO8859_1, DecodedISO88591)
	case EncodingUTF16:
		return decodeUTF16(raw)
	}
	return nil, "", fmt.Errorf("decode: unknown encoding %q (want one of auto, utf-8, windows-1252, iso-8859-1, utf-16)", enc)
}

func hasUTF16BOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF})
}

// controlByte is the offset of the first C0 control byte other than tab,
// line feed, vertical tab, form feed, carriage return and SUB (the DOS
// end-of-file mark some exports still write), or -1.
func controlByte(b []byte) int {
	for i, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1A {
			return i
		}
	}
	return -1
}

func decodeCharmap(raw []byte, cm *charmap.Charmap, name string) ([]byte, string, error) {
	if i := bytes.IndexByte(raw, 0); i >= 0 {
		return nil, "", &NormalizeError{Reason: "binary content (NUL byte)", Offset: i}
	}
	// The charmap turns the bytes it leaves undefined (0x81, 0x8D, 0x8F,
	// 0x90, 0x9D in Windows-1252) into U+FFFD: a file holding one is not in
	// that encoding, and a silent replacement character would change the
	// text that evidence is checked against.
	for i, c := range raw {
		if r := cm.DecodeByte(c); r == utf8.RuneError {
			return nil, "", &NormalizeError{Reason: fmt.Sprintf("not valid %s (byte 0x%02x is undefined)", name, c), Offset: i}
		}
	}
	out, err := cm.NewDecoder().Bytes(raw)
	if err != nil {
		return nil, "", fmt.Errorf("decode %s: %w", name, err)
	}
	return out, name, nil
}

// decodeUTF16 decodes UTF-16 with a byte-order mark, or little-endian (what
// Windows calls "Unicode") without one. Odd lengths and unpaired surrogates
// are refused rather than replaced.
func decodeUTF16(raw []byte) ([]byte, string, error) {
	order, name, body := binary.ByteOrder(binary.LittleEndian), DecodedUTF16LE, raw
	endian := unicode.LittleEndian
	switch {
	case bytes.HasPrefix(raw, []byte{0xFE, 0xFF}):
		order, name, endian, body = binary.BigEndian, DecodedUTF16BE, unicode.BigEndian, raw[2:]
	case bytes.HasPrefix(raw, []byte{0xFF, 0xFE}):
		body = raw[2:]
	}
	off := len(raw) - len(body)
	if len(body)%2 != 0 {
		return nil, "", &NormalizeError{Reason: "not valid UTF-16 (odd number of bytes)", Offset: len(raw) - 1}
	}
	for i := 0; i < len(body); i += 2 {
		u := order.Uint16(body[i:])
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00:
			if i+4 <= len(body) {
				if next := order.Uint16(body[i+2:]); next >= 0xDC00 && next <= 0xDFFF {
					i += 2
					continue
				}
			}
			return nil, "", &NormalizeError{Reason: "not valid UTF-16 (unpaired surrogate)", Offset: off + i}
		case utf16.IsSurrogate(rune(u)):
			return nil, "", &NormalizeError{Reason: "not valid UTF-16 (unpaired surrogate)", Offset: off + i}
		}
	}
	out, err := unicode.UTF16(endian, unicode.IgnoreBOM).NewDecoder().Bytes(body)
	if err != nil {
		return nil, "", fmt.Errorf("decode %s: %w", name, err)
	}
	return out, name, nil
}
