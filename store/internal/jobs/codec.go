package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// The large payloads (a job's source text, a result's JSON, an outbox
// event's payload) are written zstd-compressed into the *_zst columns of
// migration 012; rows written before it keep their TEXT columns. Every
// reader goes through unpack, so the bytes handed out are exactly the bytes
// written, whichever column holds them (docs/storage.md).

// pack compresses b, a value of kind, for a *_zst column: with the
// database's dictionary of the kind once it has one (dict.go).
func (c *Core) pack(kind string, b []byte) []byte {
	return c.encoderFor(kind, b).EncodeAll(b, make([]byte, 0, len(b)/2+16))
}

// minSplice is the smallest result worth cutting out of a payload: below
// it the offset column costs about what it saves.
const minSplice = 64

// cutResult returns payload without the first copy of result in it and the
// byte offset the result is to be put back at (spliceResult), or payload
// whole and nil when it holds no copy of a result of at least minSplice
// bytes. The outbox then stores an event that repeats its result (see
// migration 013) once, not twice.
//
// A payload built with encoding/json's defaults holds the result
// HTML-escaped (&, <, > as \u0026, \u003c, \u003e; about one result in
// eight has an "&" in a name): such a copy is cut too, and its offset
// stored as -(offset+1), so the reader puts back the escaped form
// (migration 014).
func cutResult(payload, result []byte) ([]byte, *int64) {
	if len(result) < minSplice {
		return payload, nil
	}
	at, cut := int64(bytes.Index(payload, result)), result
	if at < 0 {
		if esc := htmlEscape(result); len(esc) != len(result) {
			at, cut = int64(bytes.Index(payload, esc)), esc
		}
	}
	if at < 0 {
		return payload, nil
	}
	body := make([]byte, 0, len(payload)-len(cut))
	body = append(append(body, payload[:at]...), payload[at+int64(len(cut)):]...)
	if len(cut) != len(result) {
		at = -(at + 1)
	}
	return body, &at
}

// htmlEscape is result as encoding/json writes it inside a value it
// marshals with HTML escaping (json.HTMLEscape).
func htmlEscape(result []byte) []byte {
	var b bytes.Buffer
	json.HTMLEscape(&b, result)
	return b.Bytes()
}

// spliceResult is the payload cutResult cut: body with result put back at
// byte offset at (HTML-escaped when at is negative, see cutResult); body
// itself when at is nil.
func spliceResult(body string, at *int64, result string) (string, error) {
	if at == nil {
		return body, nil
	}
	pos := *at
	if pos < 0 {
		pos = -pos - 1
		result = string(htmlEscape([]byte(result)))
	}
	if pos > int64(len(body)) {
		return "", fmt.Errorf("result offset %d outside the %d-byte payload", *at, len(body))
	}
	return body[:pos] + result + body[pos:], nil
}

// unpack is the one read path of a compressed payload: zst when set (a row
// written since migration 012), else old, the TEXT column of an older row.
func unpack(zst []byte, old string) (string, error) {
	if zst == nil {
		return old, nil
	}
	b, err := decoders.decoder().DecodeAll(zst, nil)
	if errors.Is(err, zstd.ErrUnknownDictionary) {
		// Trained since this process read the dictionaries, maybe by
		// another process: read them again, once.
		decoders.refresh()
		b, err = decoders.decoder().DecodeAll(zst, nil)
	}
	if err != nil {
		return "", fmt.Errorf("decompress stored payload: %w", err)
	}
	return string(b), nil
}

// unpackedSize is the length of the text a zst value holds, read from its
// frame header (EncodeAll always records it), without decompressing.
func unpackedSize(zst []byte) (int64, error) {
	var h zstd.Header
	if err := h.Decode(zst); err != nil {
		return 0, fmt.Errorf("read compressed payload header: %w", err)
	}
	if !h.HasFCS {
		b, err := unpack(zst, "")
		return int64(len(b)), err
	}
	return int64(h.FrameContentSize), nil
}

// resultBody are the columns a result's JSON is read from, for
// scanResultBody: the current correction's JSON (NULL at revision 0), then
// the result row's TEXT and compressed columns.
const resultBody = `(SELECT v.result FROM result_revisions v WHERE v.tenant = r.tenant AND v.job_key = r.job_key AND v.revision = r.revision),
	r.result, r.result_zst`

// resultScan holds the scan targets of resultBody.
type resultScan struct {
	rev  *string
	text string
	zst  []byte
}

func (s *resultScan) dest() []any { return []any{&s.rev, &s.text, &s.zst} }

// json is the result's JSON as it is now: the correction's, else the
// committed one, exactly as written.
func (s *resultScan) json() ([]byte, error) {
	if s.rev != nil {
		return []byte(*s.rev), nil
	}
	body, err := unpack(s.zst, s.text)
	if err != nil {
		return nil, err
	}
	return []byte(body), nil
}
