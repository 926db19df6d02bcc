package jobs

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Job keys, source digests and prompt hashes are 64 lower-case hex digits
// outside the store (CLI, JSON, exports, logs) and 32 bytes inside it, in
// every table and index (migration 015, docs/storage.md): half the bytes
// in rows and indexes. The conversion happens here and nowhere else: an
// argument goes in through bin, a column comes out through hexOut.
//
// A string that is not 64 hex digits (a typo in a lookup, a test's
// made-up key) is kept as its own bytes, so it reads back as written and
// never equals a real key's 32 bytes; only a 32-byte string that is not
// hex would be ambiguous, and bin refuses it (binOK).

// bin is the stored form of a job key or digest.
func bin(k string) []byte {
	b, _ := binOK(k)
	return b
}

// binOK is bin that says whether k can be stored unambiguously.
func binOK(k string) ([]byte, error) {
	if len(k) == 2*keyLen {
		if b, err := hex.DecodeString(k); err == nil {
			return b, nil
		}
	}
	if len(k) == keyLen {
		// Would read back as hex: refused, and matches no stored key.
		return []byte{}, fmt.Errorf("key %q: neither 64 hex digits nor another length than %d", k, keyLen)
	}
	return []byte(k), nil
}

// binOrNil is bin for a nullable column: "" is NULL.
func binOrNil(k string) any {
	if k == "" {
		return nil
	}
	return bin(k)
}

// keyLen is the length of a stored key: a sha256.
const keyLen = 32

// hexOut scans a key column into *s as hex; NULL and ” scan as "".
type hexOut struct{ s *string }

// keyOut is the destination of a key column.
func keyOut(s *string) *hexOut { return &hexOut{s} }

// Scan implements sql.Scanner (database/sql and pgx both call it).
func (h *hexOut) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*h.s = ""
	case []byte:
		*h.s = keyString(v)
	case string:
		// A row an older process wrote as text, or coalesce(col, '').
		*h.s = v
	default:
		return fmt.Errorf("scan key: unexpected %T", src)
	}
	return nil
}

// keyString is the public form of a stored key.
func keyString(b []byte) string {
	if len(b) == keyLen {
		return hex.EncodeToString(b)
	}
	return string(b)
}

// An outbox row keeps its event key without the job key it starts with
// (outbox.event_suffix, migration 015): the row has the job key already,
// and (tenant, job_key, event_suffix) is the idempotency key. Every event
// key is <job_key>:<suffix> (store.EventKey, DismissedEventKey,
// CorrectedEventKey); eventKey puts it back byte for byte.

// eventSuffix is the part of eventKey after its job key and colon.
func eventSuffix(jobKey, eventKey string) string {
	s, ok := strings.CutPrefix(eventKey, jobKey+":")
	if !ok {
		panic("jobs: event key " + eventKey + " does not start with its job key") // a bug in store's key functions
	}
	return s
}

// eventKey is the public event key of a row.
func eventKey(jobKey, suffix string) string { return jobKey + ":" + suffix }

// keyRange is the range of stored keys whose hex starts with prefix (hex
// digits, at most 64): lo <= key <= hi, bytewise, a range of the index.
func keyRange(prefix string) (lo, hi []byte) {
	pad := func(c string) []byte {
		b, err := hex.DecodeString(prefix + strings.Repeat(c, 2*keyLen-len(prefix)))
		if err != nil {
			return nil // not hex: no range (callers check first)
		}
		return b
	}
	return pad("0"), pad("f")
}

// An outbox row stores its action id and kind only where its event suffix
// does not say them already (migration 015): the suffix of an action item
// is action:<action_id>, and an invoice.committed (or dismissed) event's
// suffix is its kind, which is also its action id. So most rows store
// both as NULL; eventFill reads them back exactly as written.

// eventCols are the action_id and kind columns of an event.
func eventCols(suffix, actionID, kind string) (a, k *string) {
	if kind != suffix {
		k = &kind
	}
	if actionID != impliedAction(suffix, kind) {
		a = &actionID
	}
	return a, k
}

// eventFill is the action id and kind of a row from its columns.
func eventFill(suffix string, a, k *string) (actionID, kind string) {
	kind = suffix
	if k != nil {
		kind = *k
	}
	actionID = impliedAction(suffix, kind)
	if a != nil {
		actionID = *a
	}
	return actionID, kind
}

// impliedAction is the action id a suffix and kind imply: the id after
// "action:", else the kind.
func impliedAction(suffix, kind string) string {
	if id, ok := strings.CutPrefix(suffix, "action:"); ok {
		return id
	}
	return kind
}
