package store

import (
	"context"
	"time"
)

// Batch states. A batch is a set of leased jobs sent to a provider's batch
// API as one submission. It is recorded before it is sent (preparing), so a
// process that dies between the provider's reply and the store's record
// leaves a trace the next collector can resolve instead of paying again.
const (
	// BatchPreparing: recorded and its jobs held, not yet known to be
	// created at the provider (RemoteID empty).
	BatchPreparing = "preparing"
	// BatchSubmitted: the provider accepted it (RemoteID set); its results
	// are awaited.
	BatchSubmitted = "submitted"
	// BatchCollected: its results were read and every item settled.
	BatchCollected = "collected"
	// BatchCancelled: cancelled by an operator; its unsettled items went
	// back to the queue.
	BatchCancelled = "cancelled"
	// BatchFailed: the provider failed the whole batch (validation of the
	// input file, say); its unsettled items went back to the queue.
	BatchFailed = "failed"
)

// Batch is one submission to a provider's batch API.
type Batch struct {
	ID       int64 // local id; also the tag the submission carries (metadata)
	Provider string
	Model    string
	// RemoteID is the provider's batch id ("batch_...", "msgbatch_..."),
	// empty while preparing; InputFileID the uploaded JSONL (OpenAI).
	RemoteID    string
	InputFileID string
	State       string
	// RemoteStatus is the provider's last reported status, as it wrote it.
	RemoteStatus string
	Requests     int
	// Done and Failed are the provider's last reported request counts.
	Done, Failed int
	// The batch lease: who polls and collects it now. A collector whose
	// token is stale can no longer change the batch.
	Owner        string
	Token        int64
	LeaseExpires time.Time
	RunID        string // the delivery that created it
	Parent       int64  // the batch whose invalid answers this one re-asks, or 0
	CreatedAt    time.Time
	SubmittedAt  time.Time
	EndedAt      time.Time
	// Message says why a batch failed or was cancelled; never document text.
	Message string
}

// BatchItem is one request of a batch: a job, held under the lease token it
// had when the batch was recorded, and the attempt the request answers.
type BatchItem struct {
	BatchID   int64
	CustomID  string
	JobID     int64
	Tenant    string
	JobKey    string
	Token     int64
	AttemptID int64
	AttemptNo int
	// Held reports whether the job still holds this item's lease (running,
	// same token): only then may its answer be committed. An item that is
	// not held is settled (AttemptOutcome set) or stale.
	Held bool
	// AttemptOutcome is the outcome of the item's attempt, empty while the
	// request is in flight.
	AttemptOutcome string
	// Lease is the job's lease as a worker would hold it (text, schema
	// version, budget), for the runner to judge and commit the answer;
	// set by BatchItems only for held items.
	Lease *Lease
}

// BatchItemInput is a leased job to put into a new batch.
type BatchItemInput struct {
	JobID     int64
	Token     int64
	AttemptID int64
	CustomID  string
}

// CreateBatchParams record a batch before it is sent.
type CreateBatchParams struct {
	Provider string
	Model    string
	RunID    string
	Owner    string
	Parent   int64
	// LeaseFor is the batch lease (who polls it); HoldUntil is how long
	// its jobs' leases are extended, so no other worker takes them while
	// the provider works (the completion window and a margin).
	LeaseFor  time.Duration
	HoldUntil time.Time
	Items     []BatchItemInput
	Now       time.Time
}

// CreateBatchResult is the recorded batch and the items whose lease was
// already stale (left out of it; their jobs are someone else's now).
type CreateBatchResult struct {
	Batch   *Batch
	Dropped []int64 // job ids
}

// SubmittedBatchParams record the provider's acceptance of a batch.
type SubmittedBatchParams struct {
	ID          int64
	Token       int64
	RemoteID    string
	InputFileID string
	Status      string
	Now         time.Time
}

// ClaimBatchesParams take over unfinished batches (preparing or submitted)
// whose batch lease is free or expired, for polling and collecting.
type ClaimBatchesParams struct {
	Owner    string
	Provider string // "" any
	IDs      []int64
	Limit    int // 0: no limit
	LeaseFor time.Duration
	// HoldUntil, when set, extends the leases of the batches' held jobs.
	HoldUntil time.Time
	Now       time.Time
}

// RenewBatchParams extend a batch lease and record what the provider last
// reported.
type RenewBatchParams struct {
	ID           int64
	Token        int64
	LeaseFor     time.Duration
	RemoteStatus string
	Done, Failed int
	Now          time.Time
}

// FinishBatchParams end a batch (collected, cancelled or failed), fenced by
// its token. Settling its items is the caller's work, done before.
type FinishBatchParams struct {
	ID           int64
	Token        int64
	State        string
	RemoteStatus string
	Message      string
	Now          time.Time
}

// BatchItemsParams select a batch's items (all when CustomIDs is empty).
type BatchItemsParams struct {
	BatchID   int64
	CustomIDs []string
}

// ListBatchesParams select batches, newest first (all states when States
// is empty; no limit when Limit is 0).
type ListBatchesParams struct {
	States []string
	Limit  int
}

// GetBatchParams name one batch by local id or by provider id.
type GetBatchParams struct {
	ID       int64
	RemoteID string
}

// Batches is the store's record of batch submissions (see docs/batch.md).
// Every write to a batch is fenced by its token (ErrStaleLease), and every
// write to its jobs by their lease tokens, exactly like a worker's.
type Batches interface {
	// CreateBatch records a batch in state preparing, leased to Owner, with
	// its items, and extends each item's job lease to HoldUntil, in one
	// transaction. Items whose job no longer holds the given token are
	// left out (Dropped); a batch left with no item is recorded cancelled
	// (Requests 0), never to be submitted.
	CreateBatch(ctx context.Context, p *CreateBatchParams) (*CreateBatchResult, error)
	// SubmittedBatch records the provider's batch id (state submitted).
	SubmittedBatch(ctx context.Context, p *SubmittedBatchParams) error
	// ClaimBatches leases unfinished batches whose lease is free or
	// expired to Owner, each with a new, larger token.
	ClaimBatches(ctx context.Context, p *ClaimBatchesParams) ([]*Batch, error)
	// RenewBatch extends a batch lease. ErrStaleLease when the token is
	// stale.
	RenewBatch(ctx context.Context, p *RenewBatchParams) (time.Time, error)
	// FinishBatch ends a batch. ErrStaleLease when the token is stale.
	FinishBatch(ctx context.Context, p *FinishBatchParams) error
	// BatchItems returns a batch's items in custom id order.
	BatchItems(ctx context.Context, p *BatchItemsParams) ([]*BatchItem, error)
	// ListBatches lists batches, newest first.
	ListBatches(ctx context.Context, p *ListBatchesParams) ([]*Batch, error)
	// GetBatch returns one batch. ErrNotFound if none.
	GetBatch(ctx context.Context, p *GetBatchParams) (*Batch, error)
}
