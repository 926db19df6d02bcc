package driver

import (
	"encoding/json"
	"fmt"

	"github.com/invx/invx/store"
)

// MaxDuplicates caps the possible_duplicate reasons one commit opens: a
// clerk needs to see that the invoice was seen before, and where, not every
// copy of it.
const MaxDuplicates = 5

// Matchable reports whether id is enough to look for a duplicate: an
// invoice number and some supplier key.
func Matchable(id *store.DocIdentity) bool {
	return id != nil && id.NumberKey != "" && (id.VATKey != "" || id.NameKey != "")
}

// CheckReasons validates the caller's reasons before anything is written
// and returns them with their details as stored ({} for none).
func CheckReasons(rs []store.ReviewReason) ([]store.ReviewReason, error) {
	out := make([]store.ReviewReason, len(rs))
	for i, r := range rs {
		switch r.Reason {
		case store.ReasonIncomplete, store.ReasonArithmetic, store.ReasonPossibleDuplicate:
		default:
			return nil, fmt.Errorf("review reason %q: unknown", r.Reason)
		}
		d := r.Detail
		if len(d) == 0 {
			d = []byte(`{}`)
		}
		if !json.Valid(d) {
			return nil, fmt.Errorf("review reason %s: detail is not JSON", r.Reason)
		}
		out[i] = store.ReviewReason{Reason: r.Reason, Detail: d}
	}
	return out, nil
}

// Candidate is another result with the same identity, as a driver's lookup
// reads it.
type Candidate struct {
	ResultID      int64
	JobKey        string
	Path          string
	SchemaVersion string
	TotalMinor    *int64
	IssueDate     *string
}

// DuplicateReason is the possible_duplicate reason naming c, saying whether
// its total (by magnitude) and issue date agree with id's; unknown on
// either side is null, never a guess.
func DuplicateReason(c Candidate, id *store.DocIdentity) store.ReviewReason {
	d := store.DuplicateDetail{JobKey: c.JobKey, Path: c.Path, SchemaVersion: c.SchemaVersion, ResultID: c.ResultID}
	if c.TotalMinor != nil && id.TotalMinor != nil {
		agree := abs(*c.TotalMinor) == abs(*id.TotalMinor)
		d.TotalsAgree = &agree
	}
	if c.IssueDate != nil && id.IssueDate != nil {
		agree := *c.IssueDate == *id.IssueDate
		d.DatesAgree = &agree
	}
	b, _ := json.Marshal(d) // plain fields: cannot fail
	return store.ReviewReason{Reason: store.ReasonPossibleDuplicate, Detail: b}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// EventState is the state a result's new outbox events are written in:
// held while any review reason is open.
func EventState(open int) string {
	if open > 0 {
		return store.OutboxHeld
	}
	return store.OutboxPending
}

// Reasons names the reasons, in order.
func Reasons(rs []store.ReviewReason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Reason
	}
	return out
}

// DismissedPayload is p.Payload, or a minimal invoice.dismissed payload.
func DismissedPayload(p *store.ReviewActionParams) []byte {
	if p.Payload != nil {
		return p.Payload
	}
	b, _ := json.Marshal(map[string]string{"event": store.EventDismissed, "tenant": p.Tenant, "job_key": p.JobKey,
		"actor": p.Actor, "note": p.Note})
	return b
}

// CorrectedPayload is p.Payload, or a minimal invoice.corrected payload
// carrying the corrected result.
func CorrectedPayload(p *store.CorrectParams, revision int) ([]byte, error) {
	if p.Payload != nil {
		return p.Payload, nil
	}
	if !json.Valid(p.Result) {
		return nil, fmt.Errorf("corrected result is not JSON")
	}
	return json.Marshal(map[string]any{"event": store.EventCorrected, "tenant": p.Tenant, "job_key": p.JobKey,
		"revision": revision, "result": json.RawMessage(p.Result), "actor": p.Actor, "reason": p.Reason})
}

// Changes encodes a correction's field changes for storage ([] for none).
func Changes(cs []store.FieldChange) ([]byte, error) {
	if cs == nil {
		cs = []store.FieldChange{}
	}
	for i := range cs {
		if cs[i].Old == nil {
			cs[i].Old = json.RawMessage(`null`)
		}
		if cs[i].New == nil {
			cs[i].New = json.RawMessage(`null`)
		}
	}
	b, err := json.Marshal(cs)
	if err != nil {
		return nil, fmt.Errorf("encode changes: %w", err)
	}
	return b, nil
}

// PolicyJSON encodes a policy's required fields ([] for none).
func PolicyJSON(fields []string) []byte {
	if fields == nil {
		fields = []string{}
	}
	b, _ := json.Marshal(fields)
	return b
}

// Identity is a result's identity columns as query arguments: nil (NULL)
// for an unknown key, and for every column when the commit has no review
// or is a shadow (a shadow result is never compared).
type Identity struct {
	VATKey, NameKey, NumberKey *string
	TotalMinor                 *int64
	IssueDate                  *string
}

// IdentityOf returns the identity columns of r.
func IdentityOf(r *store.CommitReview, shadow bool) Identity {
	if r == nil || shadow {
		return Identity{}
	}
	var out Identity
	if id := r.Identity; id != nil {
		out.VATKey, out.NameKey, out.NumberKey = nonEmpty(id.VATKey), nonEmpty(id.NameKey), nonEmpty(id.NumberKey)
		out.TotalMinor, out.IssueDate = id.TotalMinor, id.IssueDate
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
