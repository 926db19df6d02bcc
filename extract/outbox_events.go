package extract

import (
	"bytes"
	"encoding/json"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// outboxEvents are the side effects of a commit: one per action item and one
// invoice.committed. The store keys them (store.EventKey) so that no action
// id, "invoice.committed" included, can take another event's key.
//
// The payloads are written by hand, byte for byte what json.Marshal of a
// map with these keys writes (keys sorted, HTML escaped; TestOutboxEvents
// holds them to it): Marshal re-validated the whole result for its
// json.RawMessage on every commit.
func outboxEvents(l *store.Lease, res *schema.Result) []store.OutboxInput {
	evs := make([]store.OutboxInput, 0, len(res.Actions)+1)
	for _, a := range res.Actions {
		action, _ := json.Marshal(a) // a struct of strings: cannot fail
		b := make([]byte, 0, len(action)+len(l.JobKey)+len(l.Tenant)+len(res.Version)+80)
		b = append(append(b, `{"action":`...), action...)
		b = appendField(b, "event", "invoice.action")
		b = appendField(b, "job_key", l.JobKey)
		b = appendField(b, "schema_version", res.Version)
		b = appendField(b, "tenant", l.Tenant)
		evs = append(evs, store.OutboxInput{ActionID: a.ID, Kind: a.Kind, Payload: append(b, '}')})
	}
	b := make([]byte, 0, len(res.JSON)+len(l.JobKey)+len(l.Tenant)+len(l.SourcePath)+len(res.Version)+120)
	b = append(b, `{"event":`...)
	b = appendString(b, store.EventCommitted)
	b = appendField(b, "job_key", l.JobKey)
	b = append(b, `,"result":`...)
	// The result is canonical JSON, compact already; Marshal would only
	// have escaped <, > and & (and U+2028/9) in it.
	b = appendHTMLEscaped(b, res.JSON)
	b = appendField(b, "schema_version", res.Version)
	b = appendField(b, "source_path", l.SourcePath)
	b = appendField(b, "tenant", l.Tenant)
	evs = append(evs, store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: append(b, '}')})
	return evs
}

// appendField appends `,"key":` and value as a JSON string.
func appendField(b []byte, key, value string) []byte {
	b = append(append(append(b, ',', '"'), key...), '"', ':')
	return appendString(b, value)
}

// appendString appends s as json.Marshal writes a string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// appendHTMLEscaped appends compact JSON with json.Marshal's HTML escapes
// (<, >, & and the UTF-8 line and paragraph separators, which start 0xE2).
func appendHTMLEscaped(b, js []byte) []byte {
	if !needsHTMLEscape(js) {
		return append(b, js...)
	}
	buf := bytes.NewBuffer(b)
	json.HTMLEscape(buf, js)
	return buf.Bytes()
}

func needsHTMLEscape(js []byte) bool {
	for _, c := range js {
		if c == '<' || c == '>' || c == '&' || c == 0xE2 {
			return true
		}
	}
	return false
}
