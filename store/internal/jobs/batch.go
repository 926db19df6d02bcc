package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/invx/invx/store"
)

// errBatchesTODO marks the batch methods until their implementation lands.
var errBatchesTODO = errors.New("batches: not implemented yet")

// CreateBatch implements store.Store.
func (c *Core) CreateBatch(ctx context.Context, p *store.CreateBatchParams) (*store.CreateBatchResult, error) {
	return nil, errBatchesTODO
}

// SubmittedBatch implements store.Store.
func (c *Core) SubmittedBatch(ctx context.Context, p *store.SubmittedBatchParams) error {
	return errBatchesTODO
}

// ClaimBatches implements store.Store.
func (c *Core) ClaimBatches(ctx context.Context, p *store.ClaimBatchesParams) ([]*store.Batch, error) {
	return nil, errBatchesTODO
}

// RenewBatch implements store.Store.
func (c *Core) RenewBatch(ctx context.Context, p *store.RenewBatchParams) (time.Time, error) {
	return time.Time{}, errBatchesTODO
}

// FinishBatch implements store.Store.
func (c *Core) FinishBatch(ctx context.Context, p *store.FinishBatchParams) error {
	return errBatchesTODO
}

// BatchItems implements store.Store.
func (c *Core) BatchItems(ctx context.Context, p *store.BatchItemsParams) ([]*store.BatchItem, error) {
	return nil, errBatchesTODO
}

// ListBatches implements store.Store.
func (c *Core) ListBatches(ctx context.Context, p *store.ListBatchesParams) ([]*store.Batch, error) {
	return nil, errBatchesTODO
}

// GetBatch implements store.Store.
func (c *Core) GetBatch(ctx context.Context, p *store.GetBatchParams) (*store.Batch, error) {
	return nil, errBatchesTODO
}
