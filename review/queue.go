package review

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// The review queue: everything of a tenant that needs a person, as `invx
// review` lists it and the review desk shows it. One implementation, two
// faces.

// KindSkipped marks a queue entry that is a skipped file, not a job.
const KindSkipped = "skipped"

// Reasons are the review reasons of committed results, in the order the
// queue groups them: a possible second payment first.
var Reasons = []string{store.ReasonPossibleDuplicate, store.ReasonIncomplete, store.ReasonArithmetic}

// States are the job states that need a person.
var States = []string{store.StateRejected, store.StateFailed, store.StateHeld}

// Kinds are the kinds of queue entries, in queue order: the review reasons,
// then the job states, then skipped files.
var Kinds = append(slices.Clone(Reasons), store.StateHeld, store.StateFailed, store.StateRejected, KindSkipped)

// Item is one entry of the queue (and of invx review --json).
type Item struct {
	JobKey        string `json:"job_key"`
	Tenant        string `json:"tenant"`
	State         string `json:"state"`
	SourceSystem  string `json:"source_system"`
	SourcePath    string `json:"source_path"`
	SchemaVersion string `json:"schema_version"`
	Attempts      int    `json:"attempt_count"`
	ErrorClass    string `json:"error_class,omitempty"`
	Category      string `json:"category,omitempty"`
	Message       string `json:"message,omitempty"`
	HeldReason    string `json:"held_reason,omitempty"`
	PrevJobKey    string `json:"prev_job_key,omitempty"`
	PrevDigest    string `json:"prev_digest,omitempty"`
	Digest        string `json:"digest"`
	UpdatedAt     string `json:"updated_at"`
	// Skipped files (state "skipped") have no job: job_key and digest are
	// empty, category is the skip reason and message its detail.
	Size      int64  `json:"size,omitempty"`
	FirstSeen string `json:"first_seen,omitempty"`

	// Review reasons of committed results (state possible_duplicate,
	// incomplete or arithmetic; updated_at is when the reason was opened):
	// the path as the user named it, the result's values, and what is
	// wrong: the missing fields, the arithmetic problems, or the other job.
	DisplayPath string     `json:"display_path,omitempty"`
	Result      *Values    `json:"result,omitempty"`
	Missing     []string   `json:"missing,omitempty"`
	Problems    []Problem  `json:"problems,omitempty"`
	Duplicate   *Duplicate `json:"duplicate_of,omitempty"`

	// Opened is when a review reason was opened (a job's last change, a
	// file's first sighting), for its age.
	Opened time.Time `json:"-"`

	// resultID is the result a review reason is about; filled says Fill
	// has read the job and the values.
	resultID int64
	filled   bool
}

// Values are the values of a committed result a clerk decides on. Every
// key is always there (null when the result does not state it), so scripts
// can rely on the names. The IBAN is never among them.
type Values struct {
	ResultID      int64   `json:"id"`
	Revision      int     `json:"revision"`
	SupplierName  *string `json:"supplier_name"`
	InvoiceNumber *string `json:"invoice_number"`
	// IssueDate is null for v1, which has none.
	IssueDate  *string `json:"issue_date"`
	Currency   *string `json:"currency"`
	TotalMinor *int64  `json:"total_minor"`
	// Total is TotalMinor as a decimal of Currency ("5385.35").
	Total *string `json:"total"`
}

// Problem is one arithmetic problem of a result.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Duplicate names the other result of a possible duplicate.
type Duplicate struct {
	JobKey        string `json:"job_key"`
	Path          string `json:"path"`
	SchemaVersion string `json:"schema_version"`
	TotalsAgree   *bool  `json:"totals_agree"`
	DatesAgree    *bool  `json:"dates_agree"`

	// SourcePath is the other job's path in its folder, as listings show
	// paths.
	SourcePath string `json:"-"`
}

// QueueStore is what the queue reads (store.Store has it).
type QueueStore interface {
	ListReview(ctx context.Context, p *store.ListReviewParams) ([]*store.ReviewItem, error)
	GetResults(ctx context.Context, p *store.GetResultsParams) (map[int64]*store.Result, error)
	GetJob(ctx context.Context, p *store.GetJobParams) (*store.Job, error)
	ListJobs(ctx context.Context, p *store.ListJobsParams) ([]*store.Job, error)
	ListSkipped(ctx context.Context, p *store.ListSkippedParams) ([]store.SkippedInput, error)
}

// Queue lists tenant's entries of one kind (one of Kinds), or of every kind
// when kind is empty, in queue order: review reasons grouped and oldest
// first, then jobs, then skipped files; each filled (Fill).
func Queue(ctx context.Context, st QueueStore, tenant, kind string) ([]Item, error) {
	items, err := Open(ctx, st, tenant, kind)
	if err != nil {
		return nil, err
	}
	if err := Fill(ctx, st, items); err != nil {
		return nil, err
	}
	return items, nil
}

// Open lists the entries as Queue does, with a fixed number of queries
// however long the queue is: what the listings of reasons, jobs and
// skipped files hold. A review reason's job path, attempts and result
// values, and a held job's old digest, come with Fill, which a page of a
// long queue calls for its own entries only.
func Open(ctx context.Context, st QueueStore, tenant, kind string) ([]Item, error) {
	want := func(k string) bool { return kind == "" || kind == k }
	var items []Item
	if kind == "" || slices.Contains(Reasons, kind) {
		var err error
		if items, err = reasonItems(ctx, st, tenant, kind); err != nil {
			return nil, err
		}
	}
	var states []string
	for _, s := range States {
		if want(s) {
			states = append(states, s)
		}
	}
	if len(states) > 0 {
		jobs, err := st.ListJobs(ctx, &store.ListJobsParams{Tenant: tenant, States: states})
		if err != nil {
			return nil, fmt.Errorf("review queue: %w", err)
		}
		for _, j := range jobs {
			items = append(items, Item{JobKey: j.JobKey, Tenant: j.Tenant, State: j.State, SourceSystem: j.SourceSystem,
				SourcePath: j.SourcePath, SchemaVersion: j.SchemaVersion, Attempts: j.Attempts, ErrorClass: j.LastErrorClass,
				Category: j.LastCategory, Message: j.LastError, HeldReason: j.HeldReason, PrevJobKey: j.PrevJobKey,
				Digest: j.SourceDigest, UpdatedAt: ts(j.UpdatedAt), Opened: j.UpdatedAt})
		}
	}
	if want(KindSkipped) {
		skipped, err := st.ListSkipped(ctx, &store.ListSkippedParams{Tenant: tenant})
		if err != nil {
			return nil, fmt.Errorf("review queue: %w", err)
		}
		for _, in := range skipped {
			items = append(items, Item{Tenant: in.Tenant, State: KindSkipped, SourceSystem: in.SourceSystem,
				SourcePath: in.Path, Category: in.Reason, Message: in.Detail, Size: in.Size, FirstSeen: ts(in.FirstSeen),
				// How long the invoice has been missing.
				UpdatedAt: ts(in.LastSeen), Opened: in.FirstSeen, filled: true})
		}
	}
	if items == nil {
		items = []Item{}
	}
	return items, nil
}

// Fill reads what Open leaves out for the given entries: one query for the
// results' values, one per distinct job.
func Fill(ctx context.Context, st QueueStore, items []Item) error {
	var ids []int64
	for _, it := range items {
		if !it.filled && it.resultID != 0 {
			ids = append(ids, it.resultID)
		}
	}
	var results map[int64]*store.Result
	if len(ids) > 0 {
		var err error
		if results, err = st.GetResults(ctx, &store.GetResultsParams{IDs: ids}); err != nil {
			return fmt.Errorf("review queue: %w", err)
		}
	}
	jobs := map[string]*store.Job{}
	job := func(tenant, key string) (*store.Job, error) {
		if j, ok := jobs[key]; ok {
			return j, nil
		}
		j, err := st.GetJob(ctx, &store.GetJobParams{Tenant: tenant, Ref: key})
		if errors.Is(err, store.ErrNotFound) {
			j, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("review queue: job %s: %w", short(key), err)
		}
		jobs[key] = j
		return j, nil
	}
	for i := range items {
		it := &items[i]
		if it.filled {
			continue
		}
		it.filled = true
		if it.PrevJobKey != "" {
			prev, err := job(it.Tenant, it.PrevJobKey)
			if err != nil {
				return err
			}
			if prev != nil {
				it.PrevDigest = prev.SourceDigest
			}
		}
		if it.resultID == 0 {
			continue
		}
		j, err := job(it.Tenant, it.JobKey)
		if err != nil {
			return err
		}
		if j == nil {
			return fmt.Errorf("review: job %s: %w", short(it.JobKey), store.ErrNotFound)
		}
		it.SourceSystem, it.SourcePath, it.Attempts, it.Digest = j.SourceSystem, j.SourcePath, j.Attempts, j.SourceDigest
		if res, ok := results[it.resultID]; ok {
			v, err := ValuesOf(res)
			if err != nil {
				return fmt.Errorf("review: result of job %s: %w", short(it.JobKey), err)
			}
			it.Result = v
		}
		if d := it.Duplicate; d != nil {
			other, err := job(it.Tenant, d.JobKey)
			if err != nil {
				return err
			}
			if other != nil {
				d.SourcePath = other.SourcePath
			}
		}
	}
	return nil
}

// reasonItems turns the tenant's open review reasons (all of them, or of
// one reason) into entries, grouped by reason in Reasons order, oldest
// first within a group.
func reasonItems(ctx context.Context, st QueueStore, tenant, reason string) ([]Item, error) {
	open, err := st.ListReview(ctx, &store.ListReviewParams{Tenant: tenant, Reason: reason})
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	var out []Item
	for _, group := range Reasons {
		for _, it := range open {
			if it.Reason != group {
				continue
			}
			e := Item{JobKey: it.JobKey, Tenant: it.Tenant, State: it.Reason, DisplayPath: it.Path,
				SchemaVersion: it.SchemaVersion, UpdatedAt: ts(it.OpenedAt), Opened: it.OpenedAt, resultID: it.ResultID}
			if err := e.readDetail(it.Detail); err != nil {
				return nil, fmt.Errorf("review: %s of job %s: %w", it.Reason, short(it.JobKey), err)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// readDetail fills the entry's reason-specific part from the stored
// detail: the missing fields, the arithmetic problems, the other job.
func (e *Item) readDetail(detail []byte) error {
	if len(detail) == 0 {
		return nil
	}
	switch e.State {
	case store.ReasonIncomplete:
		var d struct {
			Missing []string `json:"missing"`
		}
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Missing = d.Missing
	case store.ReasonArithmetic:
		var d struct {
			Problems []Problem `json:"problems"`
		}
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Problems = d.Problems
	case store.ReasonPossibleDuplicate:
		var d store.DuplicateDetail
		if err := json.Unmarshal(detail, &d); err != nil {
			return err
		}
		e.Duplicate = &Duplicate{JobKey: d.JobKey, Path: d.Path, SchemaVersion: d.SchemaVersion,
			TotalsAgree: d.TotalsAgree, DatesAgree: d.DatesAgree}
	}
	return nil
}

// ValuesOf reads the values a clerk decides on from a stored result.
func ValuesOf(res *store.Result) (*Values, error) {
	v := &Values{ResultID: res.ID, Revision: res.Revision}
	switch res.SchemaVersion {
	case schema.V2:
		d, err := schema.DecodeStoredV2(res.JSON)
		if err != nil {
			return nil, err
		}
		v.SupplierName, v.InvoiceNumber, v.IssueDate, v.Currency, v.TotalMinor =
			d.SupplierName, d.InvoiceNumber, d.IssueDate, d.Currency, d.TotalMinor
	case schema.V1:
		d, err := schema.DecodeStoredV1(res.JSON)
		if err != nil {
			return nil, err
		}
		f := d.Invoice
		v.SupplierName, v.InvoiceNumber, v.Currency, v.TotalMinor = f.SupplierName, f.InvoiceNumber, f.Currency, f.TotalMinor
	default:
		return nil, fmt.Errorf("schema %q has no review values", res.SchemaVersion)
	}
	if v.TotalMinor != nil {
		cur := ""
		if v.Currency != nil {
			cur = *v.Currency
		}
		s := schema.FormatMinor(*v.TotalMinor, cur)
		v.Total = &s
	}
	return v, nil
}

// Why says in one line why the entry needs a person.
func (it *Item) Why() string {
	switch it.State {
	case store.ReasonIncomplete:
		return "missing " + strings.Join(it.Missing, ", ")
	case store.ReasonArithmetic:
		var ps []string
		for _, p := range it.Problems {
			ps = append(ps, p.Path+": "+p.Message)
		}
		return strings.Join(ps, "; ")
	case store.ReasonPossibleDuplicate:
		d := it.Duplicate
		if d == nil {
			return "possible duplicate"
		}
		return fmt.Sprintf("same supplier and number as %s (%s): totals %s, dates %s",
			short(d.JobKey), cmp.Or(d.SourcePath, d.Path), agree(d.TotalsAgree), agree(d.DatesAgree))
	case store.StateHeld:
		if it.PrevJobKey == "" {
			return "held: " + cmp.Or(it.HeldReason, "manual hold")
		}
		return fmt.Sprintf("changed after commit: old job %s (digest %s), new digest %s",
			short(it.PrevJobKey), short(cmp.Or(it.PrevDigest, "?")), short(it.Digest))
	case KindSkipped:
		if it.Message == "" {
			return "skipped: " + it.Category
		}
		return "skipped (" + it.Category + "): " + it.Message
	case store.StateRejected:
		// A validation message starts with its category already.
		if it.Category != "" && !strings.HasPrefix(it.Message, it.Category+":") {
			return it.Category + ": " + it.Message
		}
		return cmp.Or(it.Message, it.Category)
	default:
		head := cmp.Or(it.ErrorClass, it.Category)
		if it.ErrorClass != "" && it.Category != "" {
			head = it.ErrorClass + "/" + it.Category
		}
		// A provider error's message starts with its class already.
		msg := strings.TrimPrefix(it.Message, it.ErrorClass+": ")
		if head == "" {
			return msg
		}
		return head + ": " + msg
	}
}

func agree(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "agree"
	default:
		return "differ"
	}
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
