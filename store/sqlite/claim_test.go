package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/storetest"
)

// A claim's attempts are numbered in the order it leased the jobs, tenants
// taking turns: the scheduler reads whom it served last from the newest
// attempt id of each tenant, so attempts written in another order would
// have the next claim serve the wrong tenant first.
func TestClaimAttemptIDsFollowLeaseOrder(t *testing.T) {
	t.Parallel()
	s := open(t)
	defer s.Close()
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	for _, tenant := range []string{"t1", "t2"} {
		docs := make([]store.Document, 4)
		for i := range docs {
			docs[i] = storetest.Doc(tenant, fmt.Sprintf("inv-%d.txt", i), fmt.Sprintf("%s invoice %d", tenant, i))
		}
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: tenant, RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: docs, Now: now}); err != nil {
			t.Fatalf("enqueue %s: %v", tenant, err)
		}
	}
	ls, err := s.Claim(ctx, &store.ClaimParams{Owner: "w1", RunID: "run-1", Limit: 6, LeaseFor: time.Minute, Now: now})
	if err != nil || len(ls) != 6 {
		t.Fatalf("claim: %d leases, %v", len(ls), err)
	}
	for i := 1; i < len(ls); i++ {
		if ls[i].AttemptID <= ls[i-1].AttemptID {
			t.Fatalf("lease %d (%s) has attempt %d, not after lease %d's %d", i, ls[i].Tenant, ls[i].AttemptID, i-1,
				ls[i-1].AttemptID)
		}
		if ls[i].Tenant == ls[i-1].Tenant {
			t.Errorf("leases %d and %d both of %s: tenants do not take turns", i-1, i, ls[i].Tenant)
		}
	}
}
