// Package store is the persistence contract of invx: jobs, leases with fencing
// tokens, attempts, committed results and the outbox. Drivers (store/sqlite,
// store/postgres) implement Store and pass the conformance suite in
// store/storetest.
//
// The contract is shaped by the invariants in DESIGN.md: one committed result
// per (tenant, job key), commits fenced by the lease token, outbox rows written
// in the commit transaction, and no transaction held across a provider call.
package store

import (
	"context"
	"errors"
	"time"
)

// Errors a caller can act on. Drivers translate their database errors into
// these where they apply.
var (
	// ErrNotFound: the job, result or run does not exist (for this tenant).
	ErrNotFound = errors.New("not found")
	// ErrUnreadUnknown: an Unread document's job or reference is not what
	// KnownFiles reported (pruned or changed since); read it and enqueue
	// again.
	ErrUnreadUnknown = errors.New("unread document no longer known")
	// ErrStaleLease: the caller's lease token is no longer the job's current
	// one (its lease expired and was granted to another worker, or the job is
	// no longer running). Nothing was written.
	ErrStaleLease = errors.New("stale lease")
	// ErrTransient: the database could not be reached or asked for the
	// transaction to be run again (connection lost, server restarting,
	// serialization failure, deadlock, a lock held past the busy timeout).
	// Nothing of the failed call was kept unless the driver says otherwise,
	// and every write is fenced, so the caller may back off and try again.
	// Constraint and syntax errors are never transient: they are bugs.
	ErrTransient = errors.New("database temporarily unavailable")
)

// IsTransient reports whether err is a store error worth retrying after a
// pause (see ErrTransient).
func IsTransient(err error) bool { return errors.Is(err, ErrTransient) }

// Job states.
const (
	StateQueued    = "queued"
	StateRunning   = "running"
	StateRetryWait = "retry_wait"
	StateSucceeded = "succeeded"
	StateRejected  = "rejected"
	StateFailed    = "failed"
	StateHeld      = "held"
)

// Attempt outcomes. An attempt row is created when a lease is granted, with
// an empty outcome while it is in flight.
const (
	OutcomeSucceeded    = "succeeded"
	OutcomeRejected     = "rejected"      // the answer failed validation; may be re-asked
	OutcomeRetry        = "retry"         // transient failure, job goes to retry_wait
	OutcomeFailed       = "failed"        // permanent failure
	OutcomeStaleLease   = "stale_lease"   // the commit lost the fence
	OutcomeLeaseExpired = "lease_expired" // the lease ran out and the job was recovered
	OutcomeReleased     = "released"      // given back on interruption
	// OutcomeNotStarted: leased ahead and given back before any call (see
	// GiveBack): not a provider attempt, and it spends no budget.
	OutcomeNotStarted = "not_started"
)

// Enqueue outcomes, one per document.
const (
	EnqueueNew              = "new"               // a new job was queued
	EnqueueDuplicate        = "duplicate"         // same text already known under another path
	EnqueuePending          = "pending"           // job exists and is not finished yet
	EnqueueAlreadyCommitted = "already_committed" // job exists and has a committed result
	EnqueueNeedsReview      = "needs_review"      // job exists, rejected or failed earlier
	EnqueueHeld             = "held"              // the path's text changed after a commit
	EnqueueDismissed        = "dismissed"         // job exists and was dismissed in review
)

// OnChange says what happens to a path whose text changed after its earlier
// text was committed.
type OnChange string

// OnChange values.
const (
	OnChangeHold    OnChange = "hold"
	OnChangeProcess OnChange = "process"
)

// Store is the contract every driver implements. All methods are safe for
// concurrent use by many goroutines and, for drivers that support it, many
// processes. Every method takes a context first and returns errors wrapped
// with context; sentinel errors above are matched with errors.Is.
type Store interface {
	// Driver names the driver ("sqlite", "postgres").
	Driver() string
	// Batches records submissions to providers' batch APIs.
	Batches
	// Close releases the store's resources.
	Close() error

	// BeginRun records a delivery (one invocation of run or work).
	BeginRun(ctx context.Context, p *BeginRunParams) error
	// FinishRun stores the run's final status and summary.
	FinishRun(ctx context.Context, p *FinishRunParams) error

	// Enqueue inserts the documents' jobs if they are not there yet
	// (insert-or-ignore on tenant and job key) and records their source
	// references, in as few transactions as the driver likes. It returns one
	// outcome per document, in order.
	Enqueue(ctx context.Context, p *EnqueueParams) ([]EnqueueResult, error)
	// KnownFiles returns the source references of the given paths (paths
	// without one are left out), with the file stat recorded beside each,
	// the job each points at as it is now (KnownFile.Job) and whether an
	// earlier skip of the path is recorded: everything the stat check and
	// a no-op rerun's enqueue decision need, read-only, in one statement
	// per chunk of paths.
	KnownFiles(ctx context.Context, p *KnownFilesParams) (map[string]KnownFile, error)

	// Claim leases up to Limit claimable jobs of a tenant (any tenant when
	// Tenant is empty): queued jobs, retry_wait jobs whose time has come and
	// running jobs whose lease expired (a lease recovery). Each granted lease
	// gets a new, larger fencing token and a new attempt row. Across tenants
	// leases go first to the tenant holding the fewest live leases, so a
	// large tenant cannot starve a small one; MaxPerTenant caps a tenant.
	// SchemaVersion, when set, restricts every kind of claim to that version.
	Claim(ctx context.Context, p *ClaimParams) ([]*Lease, error)
	// Renew extends a live lease. ErrStaleLease when the token is stale.
	Renew(ctx context.Context, p *RenewParams) (time.Time, error)
	// Commit is the fenced commit: in one transaction it moves the job from
	// running to succeeded (only with the current lease token), inserts the
	// result or returns the existing one for (tenant, job key), writes the
	// outbox rows and finishes the attempt. The result is a shadow result,
	// with no outbox rows, when p.Shadow is set or the job was enqueued
	// as a shadow job (EnqueueParams.Shadow). A stale token yields
	// ErrStaleLease, records the attempt as stale_lease and writes nothing
	// else (no result, no event, no review reason).
	//
	// With p.Review, a new, non-shadow result also gets its review reasons
	// in that transaction: p.Review.Reasons, plus one possible_duplicate per
	// other committed, not superseded, non-shadow result of the tenant with
	// the same identity (see DocIdentity) and a different source digest
	// (the same text under another schema version is not a duplicate), found
	// by one index lookup. With any reason open, all the commit's events
	// are written held instead of pending. PostgreSQL serialises commits of
	// one invoice number per tenant with a transaction advisory lock, so
	// two processes committing the same invoice at once flag exactly one.
	// A returned existing result keeps the reasons it had.
	Commit(ctx context.Context, p *CommitParams) (*CommitResult, error)
	// NextAttempt finishes the current attempt (a rejected answer that will
	// be re-asked) and opens the next one under the same lease, fenced like
	// Commit. It returns the new attempt's id and number.
	NextAttempt(ctx context.Context, p *NextAttemptParams) (*NextAttemptResult, error)
	// FinishAttempt records an attempt that produced no result and moves the
	// job to State (queued, retry_wait, rejected or failed), fenced like
	// Commit.
	FinishAttempt(ctx context.Context, p *FinishAttemptParams) error
	// GiveBack returns a job whose attempt never began (no provider call
	// was made: the run stopped while the job waited for a provider slot)
	// to the queue. The attempt is closed as not_started and refunded to
	// the job's attempt budget; attempt numbers and the lease token only
	// ever grow. Fenced like Commit.
	GiveBack(ctx context.Context, p *GiveBackParams) error
	// ReapLeases expires the leases of owners that are known to be gone, so
	// their jobs can be claimed at once rather than when the lease runs out,
	// and marks their runs abandoned. It returns the number of leases.
	ReapLeases(ctx context.Context, p *ReapLeasesParams) (int, error)

	// Pending reports unfinished work of a tenant (all tenants when empty).
	Pending(ctx context.Context, p *PendingParams) (*PendingInfo, error)
	// JobStates returns the current state of the given job keys of a
	// tenant; keys without a job are left out.
	JobStates(ctx context.Context, p *JobStatesParams) (map[string]JobState, error)
	// GetJob returns one job by key, or by key prefix (at least 8 hex digits),
	// or by source path. ErrNotFound when nothing or more than one matches.
	GetJob(ctx context.Context, p *GetJobParams) (*Job, error)
	// ListAttempts returns a job's attempts, oldest first.
	ListAttempts(ctx context.Context, p *ListAttemptsParams) ([]*Attempt, error)
	// GetResult returns the committed result of a job. ErrNotFound if none.
	GetResult(ctx context.Context, p *GetResultParams) (*Result, error)
	// FindJobs lists a tenant's jobs, newest first and without their
	// text, that a person's reference may mean: every job at a path (source
	// or display path equal to Path), or, for shell completion, the jobs
	// whose key or display path starts with Prefix. Each form is one query
	// on an index, capped by Limit. No match is an empty list, not an error.
	FindJobs(ctx context.Context, p *FindJobsParams) ([]*Job, error)
	// GetResults returns the results with the given ids (a job's ResultID),
	// keyed by id; ids without a result are left out.
	GetResults(ctx context.Context, p *GetResultsParams) (map[int64]*Result, error)

	// Operator surface (invx jobs, review, retry, export, stats, outbox, prune).

	// ListJobs lists jobs, newest first, without their source text. A
	// Limit of 0 means no limit.
	ListJobs(ctx context.Context, p *ListJobsParams) ([]*Job, error)
	// ReleaseHeld moves a held job to queued (review accept). When it
	// commits, the result of the job it changed (PrevJobKey) is marked
	// superseded by the new one; the old result's outbox events are not
	// sent again. ErrNotFound when the job is not held.
	ReleaseHeld(ctx context.Context, p *JobActionParams) error
	// Dismiss closes a rejected, failed or held job without a result
	// (state dismissed), keeping the reason. ErrNotFound when the job is in
	// no such state.
	Dismiss(ctx context.Context, p *JobActionParams) error
	// Requeue moves failed or rejected jobs back to queued with a fresh
	// attempt and recovery budget (same job key). Jobs whose text was pruned cannot run
	// again and are left as they are. It returns how many it moved.
	Requeue(ctx context.Context, p *RequeueParams) (int, error)
	// ListResults calls fn for each committed result, oldest first.
	ListResults(ctx context.Context, p *ListResultsParams, fn func(*ResultRow) error) error
	// Stats aggregates per tenant.
	Stats(ctx context.Context, p *StatsParams) ([]*TenantStats, error)
	// ListOutbox lists outbox events, oldest first: a tenant's (or every
	// tenant's), or one job's when JobKey is set.
	ListOutbox(ctx context.Context, p *ListOutboxParams) ([]*OutboxEvent, error)
	// ClaimOutbox leases pending events that are due, for delivery, and
	// counts the delivery attempt then (a deliverer that dies mid-send has
	// still used an attempt). An event whose deliverer died becomes
	// claimable again when its lease expires (or at once once ReapLeases saw
	// its owner gone).
	ClaimOutbox(ctx context.Context, p *ClaimOutboxParams) ([]*OutboxEvent, error)
	// FinishOutbox records a delivery attempt, fenced by the event's lease
	// token: delivered, pending again (with NextTryAt) or failed (parked).
	FinishOutbox(ctx context.Context, p *FinishOutboxParams) error
	// RequeueOutbox moves failed (parked) events back to pending with a
	// fresh attempt budget: attempts restart at 0 and the event is due at
	// once; the last error stays on record until the next attempt. Pending
	// and delivered events are never touched, so a delivered event is never
	// sent again. It returns how many events it moved; keys that name no
	// failed event of the tenant are not an error.
	RequeueOutbox(ctx context.Context, p *RequeueOutboxParams) (int, error)
	// Prune removes the source text and attempt details of terminal jobs
	// last updated before p.Before, keeping jobs, keys and results so reruns
	// stay idempotent.
	Prune(ctx context.Context, p *PruneParams) (*PruneResult, error)

	// Inputs that were found but not processed (invx review lists them).

	// RecordSkipped records a file a run passed over for its content or
	// size, keyed by (tenant, source system, path). Recording a path again
	// updates its reason, detail, size, run and last-seen time, and reopens
	// it if it was dismissed; its first-seen time stays.
	RecordSkipped(ctx context.Context, p *RecordSkippedParams) error
	// DismissSkipped closes an open skipped input with the user's reason.
	// ErrNotFound when the path has no open skipped input.
	DismissSkipped(ctx context.Context, p *DismissSkippedParams) error
	// ListSkipped returns the open (not dismissed) skipped inputs of a
	// tenant, or of every tenant, oldest first. A successful Enqueue of the
	// same (tenant, source system, path) removes its row: the path was
	// processed after all.
	ListSkipped(ctx context.Context, p *ListSkippedParams) ([]SkippedInput, error)

	// Review reasons, held events, corrections and the review policy.
	Reviewer
}

// SkippedInput is a file that was found but not enqueued (not text, not
// UTF-8, too large, unreadable), kept until a later run processes its path
// or a person dismisses it.
type SkippedInput struct {
	Tenant, SourceSystem, Path, Reason, Detail, RunID string
	Size                                              int64
	FirstSeen, LastSeen                               time.Time
}

// RecordSkippedParams describe one skipped file. Detail says what was wrong
// (never the file's content).
type RecordSkippedParams struct {
	Tenant, SourceSystem, RunID, Path, Reason, Detail string
	Size                                              int64
	Now                                               time.Time
}

// DismissSkippedParams name a skipped input to close.
type DismissSkippedParams struct {
	Tenant, SourceSystem, Path string
	// Reason is why the user dismissed it.
	Reason string
	Now    time.Time
}

// ListSkippedParams filter ListSkipped.
type ListSkippedParams struct {
	Tenant     string
	AllTenants bool
	Limit      int // 0 = no limit
}

// StateDismissed closes a job that needs no result (invx review dismiss).
const StateDismissed = "dismissed"

// ListJobsParams filter invx jobs.
type ListJobsParams struct {
	Tenant string // empty: all tenants
	States []string
	Since  time.Time // updated at or after
	Limit  int
}

// JobActionParams name one job of a tenant.
type JobActionParams struct {
	Tenant string
	JobKey string
	Reason string
	Now    time.Time
}

// RequeueParams select jobs to retry: the keys given, or every job of the
// tenant in one of States (failed, rejected) when Keys is empty.
type RequeueParams struct {
	Tenant string
	Keys   []string
	States []string
	Now    time.Time
}

// ListResultsParams filter committed results.
type ListResultsParams struct {
	Tenant            string // empty: all tenants
	SchemaVersion     string // empty: all versions
	Since             time.Time
	IncludeSuperseded bool
	IncludeShadow     bool
}

// ResultRow is a committed result with its job's source reference.
type ResultRow struct {
	Result
	SourceSystem string
	SourcePath   string
	SourceDigest string
	// DisplayPath is the job's path as the user named it (see Document);
	// empty for jobs enqueued before invx stored it.
	DisplayPath string
}

// FindJobsParams select the jobs FindJobs lists: by Path, or by Prefix.
type FindJobsParams struct {
	Tenant string
	// Path matches a job's source path (relative to the walked root) or its
	// display path exactly.
	Path string
	// Prefix, when Path is empty, matches the start of a job key (when it
	// is lowercase hex) or of a display path.
	Prefix string
	// States keeps only jobs in these states (empty: any).
	States []string
	// Limit caps the list (0: 50).
	Limit int
}

// StatsParams select the window of invx stats.
type StatsParams struct {
	Tenant string // empty: all tenants
	Since  time.Time
	Now    time.Time
}

// TokenUsage sums the tokens of one provider and model.
type TokenUsage struct {
	Provider     string
	Model        string
	Attempts     int
	InputTokens  int64
	OutputTokens int64
	// BatchInputTokens and BatchOutputTokens are the part of the tokens
	// spent by batch attempts, priced at the batch discount.
	BatchInputTokens  int64
	BatchOutputTokens int64
}

// TenantStats are the raw figures of one tenant; rates and costs are
// derived by the caller.
type TenantStats struct {
	Tenant string
	// JobsByState counts jobs by state.
	JobsByState map[string]int
	// RejectedBy counts rejected jobs by category.
	RejectedBy map[string]int
	// RejectedByProvider counts rejected attempts by schema version and
	// provider ("invoice-summary-v1/openai").
	RejectedByProvider map[string]int
	Attempts           int
	AttemptsByOutcome  map[string]int
	Commits            int
	// DocumentsSeen and Duplicates sum the runs' summaries.
	DocumentsSeen   int
	Duplicates      int
	LeaseRecoveries int
	StaleLeases     int
	Tokens          []TokenUsage
	// BatchInputTokens and BatchOutputTokens are the part of Tokens spent
	// by batch attempts (a batch id recorded), priced at the batch discount.
	BatchInputTokens  int64
	BatchOutputTokens int64
	// CommitLatency are enqueue-to-commit times of results in the window.
	CommitLatencyP50 time.Duration
	CommitLatencyP95 time.Duration
	OldestQueued     time.Time
	OutboxPending    int
	OldestPending    time.Time
	OutboxFailed     int
	// ReviewOpen counts open review reasons by reason, at any time (nil
	// when none).
	ReviewOpen map[string]int
}

// ListOutboxParams filter outbox events.
type ListOutboxParams struct {
	Tenant string // empty: all tenants
	// JobKey keeps one job's events (empty: every job's). The key is unique
	// only within a tenant, so set Tenant with it.
	JobKey  string
	Pending bool // only events not delivered yet (pending, held or failed)
	Limit   int  // 0: no limit
}

// ClaimOutboxParams ask for events to deliver.
type ClaimOutboxParams struct {
	Tenant   string // empty: all tenants
	Owner    string
	Limit    int
	LeaseFor time.Duration
	Now      time.Time
}

// Outbox event states.
const (
	OutboxPending   = "pending"
	OutboxDelivered = "delivered"
	OutboxFailed    = "failed"
)

// FinishOutboxParams record one delivery attempt.
type FinishOutboxParams struct {
	ID        int64
	Token     int64
	State     string // delivered, pending, failed
	NextTryAt time.Time
	Error     string
	Now       time.Time
}

// RequeueOutboxParams select parked events to send again: the event keys
// given, or every failed event of the tenant when EventKeys is empty.
type RequeueOutboxParams struct {
	Tenant    string   // empty: all tenants
	EventKeys []string // empty: every failed event of the tenant
	// Now is the time of the requeue. Outbox rows keep no update time, so
	// the drivers do not store it yet.
	Now time.Time
}

// PruneParams choose what prune removes.
type PruneParams struct {
	Tenant string // empty: all tenants
	Before time.Time
	DryRun bool
}

// PruneResult says what prune removed (or would).
type PruneResult struct {
	Jobs        int
	TextBytes   int64
	Attempts    int
	OutputBytes int64
}

// BeginRunParams describe a new delivery.
type BeginRunParams struct {
	ID      string
	Tenant  string
	Command string
	// Owner is the worker identity (see ReapLeasesParams.Alive), so a run
	// whose process died can be marked abandoned.
	Owner         string
	Provider      string
	SchemaVersion string
	StartedAt     time.Time
}

// FinishRunParams close a delivery.
type FinishRunParams struct {
	ID         string
	Status     string // completed, interrupted, aborted
	FinishedAt time.Time
	// Summary is the run summary as JSON.
	Summary []byte
}

// Document is one normalised document to enqueue.
type Document struct {
	SourceSystem string
	Path         string // relative to the walked root, slash separated
	Digest       string
	JobKey       string
	Text         string

	// DisplayPath is the path as the user named it: the walked root as
	// given joined with Path. It tells two nightly folders apart in show and
	// export; the source identity (SourceSystem, Path) stays what change
	// detection compares.
	DisplayPath string
	// Encoding is the decoding the text was read with ("utf-8",
	// "windows-1252", ...); kept on the job it creates.
	Encoding string
	// Format is the input format detected at discovery ("txt",
	// "ubl-invoice", "cii", ...) and Route the provider the document is
	// routed to ("einvoice", "rules", ...); kept on the job it creates.
	Format string
	Route  string

	// Stat is the file's stat when its bytes were read (nil: not a file,
	// or not known). It is recorded with the source reference, only beside
	// the digest it was read with, so a later run can tell the file is
	// unchanged without reading it (KnownFiles).
	Stat *FileStat
	// Unread marks a document the caller did not read because KnownFiles
	// said its file is unchanged: Text is empty and Digest is the recorded
	// one. Enqueue only reports on its existing job; if the store no longer
	// knows it as it was (the job pruned in between), Enqueue fails with
	// ErrUnreadUnknown and writes nothing of the batch.
	Unread bool
}

// FileStat identifies one version of a file without reading it: size,
// modification time, inode, status change time (CtimeNS: any write
// changes it, and so does setting the modification time back on purpose;
// 0 where the system does not say) and the options its bytes were read
// with (ReadOpts: decoding and size cap, which the digest depends on). A
// file rewritten with the same size within the same tick of a coarse file
// system clock looks unchanged: invx run --rehash reads anyway.
type FileStat struct {
	Size     int64
	MtimeNS  int64
	CtimeNS  int64
	Inode    uint64
	ReadOpts string
}

// KnownFilesParams name paths of one source system.
type KnownFilesParams struct {
	Tenant, SourceSystem string
	Paths                []string
}

// KnownFile is a path's source reference: the digest it was last seen with,
// the file's stat when it was read (nil when none was recorded), and the
// job the reference points at.
type KnownFile struct {
	Digest string
	Stat   *FileStat
	// JobKey is the job the reference points at: the key of Digest under
	// the transformation and schema version of the run that recorded it
	// (another schema version's key differs). That job exists: the key is
	// written in the transaction that inserts or finds its job, and no
	// job row is ever deleted (prune keeps it, dropping its text).
	JobKey string
	// Job is the job JobKey names, as the same statement read it (nil
	// when it is not there).
	Job *KnownJob
	// Skipped: a skip of the path is recorded (skipped_inputs), which an
	// enqueue of the path would clear.
	Skipped bool
}

// KnownJob is what an enqueue decision reads of an existing job.
type KnownJob struct {
	ID                int64
	State, SourcePath string
	PrevJobKey        string
}

// Settled is the enqueue outcome of an unread document at path whose job
// key is key, when enqueueing it would write nothing: the reference points
// at that job, the job exists, no skip of the path is to be cleared and no
// held job is to be released (onChange process). ok is false when the
// document must go through Enqueue. The reference's stat is the caller's
// to compare: a document whose stat differs is read, not settled.
func (k *KnownFile) Settled(key, path string, onChange OnChange) (res EnqueueResult, ok bool) {
	j := k.Job
	if j == nil || k.JobKey != key || k.Skipped || j.State == StateHeld && onChange == OnChangeProcess {
		return res, false
	}
	return EnqueueResult{Outcome: ExistingOutcome(j.State, j.SourcePath, path), JobID: j.ID, JobKey: key,
		PrevJobKey: j.PrevJobKey}, true
}

// EnqueueParams enqueue documents of one tenant.
type EnqueueParams struct {
	Tenant         string
	RunID          string
	Transformation string
	SchemaVersion  string
	OnChange       OnChange
	Docs           []Document
	Now            time.Time
	// Shadow marks the new jobs as a shadow run's (invx run --shadow):
	// their results commit as shadow, publishing nothing, whoever works
	// them later (an invx work after an interrupted shadow run included).
	// Jobs that already exist keep what they were.
	Shadow bool
}

// EnqueueResult is the outcome for one document.
type EnqueueResult struct {
	Outcome string
	JobID   int64
	JobKey  string
	// PrevJobKey is the committed job the path pointed to, for held jobs.
	PrevJobKey string
}

// ClaimParams ask for leases.
type ClaimParams struct {
	Tenant   string // empty: any tenant
	Owner    string
	RunID    string
	Limit    int
	LeaseFor time.Duration
	Now      time.Time
	// MaxPerTenant caps one tenant's live leases (0: no cap).
	MaxPerTenant int
	// SchemaVersion, when set, leases only jobs of that schema version
	// (invx work --schema): a worker built for one version never takes, or
	// recovers, another's jobs. Empty: every version.
	SchemaVersion string
}

// Lease is a granted claim on one job.
type Lease struct {
	JobID         int64
	Tenant        string
	JobKey        string
	SchemaVersion string
	SourcePath    string
	Text          string
	Token         int64
	ExpiresAt     time.Time
	AttemptID     int64
	AttemptNo     int
	// Recovered is set when the job was taken over from an expired lease.
	Recovered bool
	// PrevAttempts are the attempts made before this one.
	PrevAttempts int
	// PrevTokens are the input and output tokens of those attempts.
	PrevTokens int64
	// BudgetBase is the number of the job's attempts that do not count
	// against --max-attempts: those made before a person last requeued it,
	// and those lost to lease expiry since (a worker that crashed or stalled
	// is an infrastructure failure, bounded by --max-recoveries instead), so
	// AttemptNo - BudgetBase numbers the provider attempts of the budget.
	BudgetBase int
	// Recoveries counts the job's leases that expired and were taken over
	// since a person last requeued it, this one included when Recovered.
	Recoveries int
}

// RenewParams extend a lease.
type RenewParams struct {
	JobID    int64
	Token    int64
	LeaseFor time.Duration
	Now      time.Time
}

// AttemptInfo is what a finished attempt records. It never holds secrets;
// Output holds the candidate answer for rejected attempts (for review).
type AttemptInfo struct {
	Outcome      string
	ErrorClass   string
	Category     string
	Message      string
	Provider     string
	Model        string
	HTTPStatus   int
	RequestID    string
	Duration     time.Duration
	InputTokens  int64
	OutputTokens int64
	NextDelay    time.Duration
	PromptHash   string
	Output       []byte
	// BatchID and CustomID name the batch submission (the provider's batch
	// id) and the request in it that this attempt was; empty for a
	// synchronous call. Batch attempts are priced at the batch discount.
	BatchID  string
	CustomID string
}

// OutboxInput is one side effect to publish after the commit: an action
// item (ActionID its id, Kind its kind), or the commit itself (ActionID and
// Kind EventCommitted). EventKey names it.
type OutboxInput struct {
	ActionID string
	Kind     string
	Payload  []byte
}

// EventCommitted is the kind, and the action id, of the one event every
// (non-shadow) commit publishes besides its action items.
const EventCommitted = "invoice.committed"

// EventKey is the outbox key of ev, unique within the job for every action
// id a provider may choose: the commit event is <job_key>:invoice.committed,
// an action item <job_key>:action:<action_id>. Before this namespace an
// action whose id was "invoice.committed" took the commit event's key, and
// the commit event was dropped (migration 004 rewrote the old keys).
func EventKey(jobKey string, ev *OutboxInput) string {
	if ev.Kind == EventCommitted {
		return jobKey + ":" + EventCommitted
	}
	return jobKey + ":action:" + ev.ActionID
}

// CommitParams carry a validated result to commit.
type CommitParams struct {
	JobID         int64
	Tenant        string
	JobKey        string
	Token         int64
	AttemptID     int64
	RunID         string
	SchemaVersion string
	Result        []byte
	Shadow        bool
	Outbox        []OutboxInput
	Attempt       AttemptInfo
	Now           time.Time
	// Review is what the result brings for review (nil: nothing, and the
	// commit costs no extra query). Ignored for shadow results.
	Review *CommitReview
	// HandedOver, if set, is called once the commit has its place in the
	// commit order (group commit has taken it), before it is written: a
	// caller that hands commits over one after another (the runner, with
	// one provider slot) gets them written in that order.
	HandedOver func()
}

// CommitResult tells which result row holds the job's answer.
type CommitResult struct {
	ResultID int64
	// Existing is true when a result was already there and was returned.
	Existing bool
	// Reasons are the review reasons this commit opened (the caller's and
	// the duplicates found), in the order stored; empty for an existing
	// result.
	Reasons []string
}

// NextAttemptParams close one attempt and open the next under one lease.
type NextAttemptParams struct {
	JobID     int64
	Token     int64
	AttemptID int64
	RunID     string
	Owner     string
	Attempt   AttemptInfo
	Now       time.Time
}

// NextAttemptResult names the attempt NextAttempt opened.
type NextAttemptResult struct {
	AttemptID int64
	AttemptNo int
}

// FinishAttemptParams record an attempt without a result.
type FinishAttemptParams struct {
	JobID     int64
	Token     int64
	AttemptID int64
	// State is the job's next state: queued, retry_wait, rejected or failed.
	State         string
	NextAttemptAt time.Time
	Attempt       AttemptInfo
	Now           time.Time
}

// GiveBackParams name the lease to undo and its open attempt.
type GiveBackParams struct {
	JobID     int64
	Token     int64
	AttemptID int64
	Now       time.Time
}

// ReapLeasesParams name owners known to be gone.
type ReapLeasesParams struct {
	// Alive reports whether a lease owner still exists; owners it returns
	// false for lose their leases now.
	Alive func(owner string) bool
	Now   time.Time
}

// PendingParams select the work Pending counts.
type PendingParams struct {
	Tenant string // empty: all tenants
	// SchemaVersion, when set, counts only jobs of that version (the jobs
	// a claim with the same SchemaVersion could take). Empty: every version.
	SchemaVersion string
}

// PendingInfo summarises unfinished work.
type PendingInfo struct {
	Queued int
	// Running counts the jobs leased to workers, not those held by a batch.
	Running   int
	RetryWait int
	// InBatch counts the running jobs a batch run leased (owner prefixed
	// BatchOwnerPrefix): their answers come from the provider's batch API
	// within its window, so a synchronous worker does not wait for them.
	// They are not in Total, nor in NextWake.
	InBatch int
	// NextWake is the earliest time something may become claimable (a retry
	// time or a lease expiry); zero when nothing is waiting.
	NextWake time.Time
}

// BatchOwnerPrefix marks the lease owner of jobs a batch run leased.
const BatchOwnerPrefix = "batch:"

// Total is the number of unfinished jobs.
func (p *PendingInfo) Total() int { return p.Queued + p.Running + p.RetryWait }

// JobStatesParams name job keys of one tenant.
type JobStatesParams struct {
	Tenant string
	Keys   []string
}

// JobState is a job's state and result pointer.
type JobState struct {
	State    string
	ResultID int64
	// Category is the last rejection category or error class.
	Category string
}

// GetJobParams select a job by exactly one of its references.
type GetJobParams struct {
	Tenant string
	// Ref is a job key, a key prefix of at least 8 hex digits, or a source path.
	Ref string
}

// Job is a job row.
type Job struct {
	ID              int64
	Tenant          string
	JobKey          string
	Transformation  string
	SchemaVersion   string
	SourceDigest    string
	SourceSystem    string
	SourcePath      string
	SourceText      string
	State           string
	Attempts        int
	LeaseOwner      string
	LeaseToken      int64
	LeaseExpiresAt  time.Time
	NextAttemptAt   time.Time
	HeldReason      string
	PrevJobKey      string
	LastErrorClass  string
	LastCategory    string
	LastError       string
	LeaseRecoveries int
	ResultID        int64
	CreatedAt       time.Time
	UpdatedAt       time.Time
	FirstRunID      string
	Shadow          bool
	DismissReason   string

	// DisplayPath is the path as the user named it at enqueue (see
	// Document); empty for jobs enqueued before invx stored it.
	DisplayPath string
	// SourceEncoding is the decoding of the text that created the job
	// ("" when not recorded).
	SourceEncoding string
	// SourceFormat and Route are the job's input format and provider route
	// (see Document; "" when not recorded).
	SourceFormat string
	Route        string
}

// ListAttemptsParams name the job whose attempts are listed.
type ListAttemptsParams struct {
	JobID int64
}

// Attempt is an attempt row.
type Attempt struct {
	ID         int64
	JobID      int64
	AttemptNo  int
	RunID      string
	Owner      string
	LeaseToken int64
	StartedAt  time.Time
	FinishedAt time.Time
	AttemptInfo
}

// GetResultParams name one job's result.
type GetResultParams struct {
	Tenant string
	JobKey string
}

// GetResultsParams name results by id (a job's ResultID).
type GetResultsParams struct {
	IDs []int64
}

// Result is a committed result.
type Result struct {
	ID            int64
	Tenant        string
	JobKey        string
	JobID         int64
	SchemaVersion string
	JSON          []byte
	AttemptID     int64
	RunID         string
	Shadow        bool
	CommittedAt   time.Time
	SupersededBy  int64
	// Revision is the number of the correction JSON holds: 0 for the
	// result as committed, n after n corrections (CorrectResult). GetResult,
	// GetResults and ListResults give the latest revision.
	Revision int
}

// OutboxEvent is an outbox row.
type OutboxEvent struct {
	ID          int64
	Tenant      string
	EventKey    string
	JobKey      string
	ActionID    string
	Kind        string
	Payload     []byte
	State       string // pending, held, delivered, failed, cancelled
	Attempts    int
	CreatedAt   time.Time
	DeliveredAt time.Time
	NextTryAt   time.Time
	LastError   string
	// Token fences a claimed event (ClaimOutbox).
	Token int64
}
