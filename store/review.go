package store

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Review reasons: why a committed result needs a person before it is paid
// (DESIGN.md, "Review policy").
const (
	// ReasonIncomplete: a field the tenant's policy requires is null.
	ReasonIncomplete = "incomplete"
	// ReasonPossibleDuplicate: another committed result of the tenant has
	// the same supplier and invoice number (found by the store at commit).
	ReasonPossibleDuplicate = "possible_duplicate"
	// ReasonArithmetic: sums that do not add up, from a provider that cannot
	// be asked again.
	ReasonArithmetic = "arithmetic"
)

// Review reason states. A reason is opened at commit (or correction) and
// closed once, by accept, dismiss or a correction.
const (
	ReviewOpen      = "open"
	ReviewAccepted  = "accepted"
	ReviewDismissed = "dismissed"
	ReviewCorrected = "corrected"
)

// Outbox states besides pending, delivered and failed.
const (
	// OutboxHeld: written while the result has an open review reason;
	// never claimed for delivery until AcceptReview (or a correction that
	// leaves nothing open) makes it pending.
	OutboxHeld = "held"
	// OutboxCancelled: a held event whose result was dismissed in review;
	// never delivered.
	OutboxCancelled = "cancelled"
)

// Events the review surface publishes.
const (
	EventDismissed = "invoice.dismissed"
	EventCorrected = "invoice.corrected"
)

// DismissedEventKey is the outbox key of a result's invoice.dismissed event.
func DismissedEventKey(jobKey string) string { return jobKey + ":" + EventDismissed }

// CorrectedEventKey is the outbox key of the invoice.corrected event of one
// revision (1, 2, ...).
func CorrectedEventKey(jobKey string, revision int) string {
	return jobKey + ":" + EventCorrected + ":" + strconv.Itoa(revision)
}

// ReviewReason is one reason the caller found (incomplete, arithmetic).
// Detail is a JSON value saying what is wrong (the missing fields, the
// arithmetic messages); nil is stored as {}. Never invoice text.
type ReviewReason struct {
	Reason string
	Detail []byte
}

// DocIdentity is what makes two results one invoice: the keys of package
// review, computed by the caller. An empty key is unknown. The store
// compares results of the same tenant with the same NumberKey: they are the
// same supplier when both have a VATKey and the two are equal, or, when
// either lacks one, when their NameKeys are equal. Without a NumberKey, or
// without both a VATKey and a NameKey, nothing is compared.
type DocIdentity struct {
	VATKey    string // review.VATKey
	NameKey   string // review.NameKey
	NumberKey string // review.NormalizeInvoiceNumber
	// TotalMinor and IssueDate (YYYY-MM-DD) say, in a duplicate's detail,
	// whether the two documents agree; nil is unknown.
	TotalMinor *int64
	IssueDate  *string
}

// CommitReview is what a commit (or a correction) brings for review: the
// reasons the caller found, and the identity the store checks for
// duplicates.
type CommitReview struct {
	Reasons  []ReviewReason
	Identity *DocIdentity
}

// DuplicateDetail is the Detail of a possible_duplicate reason (JSON): the
// other result and whether the two agree. TotalsAgree compares magnitudes
// (a credit note's -100 agrees with 100); nil when either side is unknown.
type DuplicateDetail struct {
	JobKey        string `json:"job_key"`
	Path          string `json:"path"`
	SchemaVersion string `json:"schema_version"`
	ResultID      int64  `json:"result_id"`
	TotalsAgree   *bool  `json:"totals_agree"`
	DatesAgree    *bool  `json:"dates_agree"`
}

// ReviewItem is one open review reason with what a clerk needs to find the
// result: ResultID to read its values (GetResults), the job's path and
// schema version.
type ReviewItem struct {
	ID            int64
	Tenant        string
	JobKey        string
	ResultID      int64
	Revision      int
	Path          string // the job's display path, else its source path
	SchemaVersion string
	Reason        string
	Detail        []byte
	OpenedAt      time.Time
}

// ListReviewParams filter ListReview.
type ListReviewParams struct {
	Tenant     string
	AllTenants bool   // every tenant's items; Tenant is ignored
	Reason     string // empty: every reason
	// JobKeys, when set, lists only these jobs' items (of Tenant): a run
	// asks about its own documents a chunk at a time, not about every
	// item the tenant has open.
	JobKeys []string
}

// CountReviewParams name jobs of one tenant whose open review reasons a
// run's finish counts: the keys JobKeys lists, or, when Has is set, those
// of the tenant's open reasons Has reports true for.
type CountReviewParams struct {
	Tenant  string
	JobKeys []string
	// Has, when set, replaces JobKeys: the tenant's open reasons are read
	// once (not one key lookup per job of a large run) and counted where
	// Has(job key) is true, as long as there are at most MaxOpen of them;
	// more, and nothing is read (ReviewCounts.TooMany): ask by JobKeys.
	// Has is called once per job, in ascending job key order, so a caller
	// can walk its own sorted keys alongside rather than hold them for
	// lookups.
	Has     func(jobKey string) bool
	MaxOpen int
}

// ReviewCounts are the open review reasons of some jobs: Docs is the number
// of jobs with at least one, ByReason the reasons by name.
type ReviewCounts struct {
	Docs     int
	ByReason map[string]int
	// TooMany: CountReviewParams.Has was set and the tenant has more than
	// MaxOpen open reasons; nothing was counted.
	TooMany bool
}

// ReviewActionParams name the job whose open reasons a person closes.
type ReviewActionParams struct {
	Tenant, JobKey string
	Actor, Note    string
	// Payload is the invoice.dismissed event's payload (DismissReview); nil
	// gives a minimal one (event, tenant, job_key, actor, note).
	Payload []byte
	Now     time.Time
}

// ReviewActionResult says what a review action changed.
type ReviewActionResult struct {
	Reasons int // reasons closed
	Events  int // held events released (accept) or cancelled (dismiss)
}

// FieldChange is one corrected field, old and new values as JSON.
type FieldChange struct {
	Field string          `json:"field"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
}

// CorrectParams carry a corrected result, validated by the caller.
type CorrectParams struct {
	Tenant, JobKey string
	Result         []byte
	Changes        []FieldChange
	Actor, Reason  string
	// Review holds the reasons that remain (completeness, arithmetic of the
	// corrected values) and the corrected identity, checked for duplicates
	// again. nil: no reason remains and nothing is compared.
	Review *CommitReview
	// Payload is the invoice.corrected event's payload; nil gives a minimal
	// one (event, tenant, job_key, revision, result).
	Payload []byte
	Now     time.Time
}

// CorrectResult names the revision a correction stored.
type CorrectResult struct {
	ResultID int64
	Revision int
	// Open are the reasons open after the correction (duplicates found
	// again included); empty means its held events were released.
	Open []string
}

// ListRevisionsParams name one job's result.
type ListRevisionsParams struct {
	Tenant, JobKey string
}

// Revision is one correction of a result (revision 0, the committed result
// itself, is not one).
type Revision struct {
	Revision  int
	ResultID  int64
	JSON      []byte
	Actor     string
	Reason    string
	Changes   []FieldChange
	CreatedAt time.Time
}

// Policy is a tenant's review policy: the fields a result must have for
// payment (the schema's default when none is stored).
type Policy struct {
	Tenant    string
	Require   []string
	UpdatedAt time.Time
	Actor     string
}

// GetPolicyParams name a tenant.
type GetPolicyParams struct {
	Tenant string
}

// SetPolicyParams store a tenant's policy.
type SetPolicyParams struct {
	Tenant  string
	Require []string
	Actor   string
	Now     time.Time
}

// Reviewer is the review surface of the store (issue 14), part of Store.
type Reviewer interface {
	// ListReview lists open review reasons, oldest first.
	ListReview(ctx context.Context, p *ListReviewParams) ([]*ReviewItem, error)
	// CountReview counts the open review reasons of the given jobs, as
	// ListReview with JobKeys would list them, reading the reasons alone
	// (a run's finish needs the counts, not the items).
	CountReview(ctx context.Context, p *CountReviewParams) (*ReviewCounts, error)
	// AcceptReview closes the job's open reasons as accepted and makes its
	// held outbox events pending. ErrNotFound when the job has no open
	// reason.
	AcceptReview(ctx context.Context, p *ReviewActionParams) (*ReviewActionResult, error)
	// DismissReview closes the job's open reasons as dismissed, cancels its
	// held events (never delivered) and publishes invoice.dismissed
	// (DismissedEventKey, pending). The result stays, for the record.
	// ErrNotFound when the job has no open reason.
	DismissReview(ctx context.Context, p *ReviewActionParams) (*ReviewActionResult, error)
	// CorrectResult stores p.Result as the job's next revision, in one
	// transaction: the revision row (who, why, old and new values), the
	// result's new identity, the open reasons closed as corrected, the
	// reasons of p.Review plus any duplicate of the new identity opened, and
	// an invoice.corrected event (CorrectedEventKey). When reasons remain,
	// that event is held; when none remain, it is pending and the job's
	// held events are released too (the clerk's correction settled what
	// was wrong; consumers get invoice.committed, then invoice.corrected).
	// ErrNotFound when the job has no result that may be corrected (none,
	// shadow, or superseded by a changed text).
	CorrectResult(ctx context.Context, p *CorrectParams) (*CorrectResult, error)
	// ListRevisions returns a job's corrections, oldest first (none: an
	// empty list).
	ListRevisions(ctx context.Context, p *ListRevisionsParams) ([]*Revision, error)
	// GetPolicy returns a tenant's stored policy; ErrNotFound when it has
	// none (the caller uses the schema's default).
	GetPolicy(ctx context.Context, p *GetPolicyParams) (*Policy, error)
	// SetPolicy stores (replaces) a tenant's policy.
	SetPolicy(ctx context.Context, p *SetPolicyParams) error
}
