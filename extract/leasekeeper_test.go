package extract_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
)

// A call that outlasts several lease terms keeps its job: the keeper
// renews the lease meanwhile, so a second worker that looks after the
// first term has passed finds nothing to take over, and the first worker
// commits with no lease recovery.
func TestLongCallKeepsItsLease(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// Long enough that a loaded CI machine does not stall the keeper past
	// the lease (a renewal is due a third of a term in, so a stall of two
	// thirds loses it): at 300 ms it failed under load 13.
	const leaseFor = time.Second
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := &ctxProvider{fn: func(context.Context, *extract.Request) (*extract.Response, error) {
		once.Do(func() { close(started) })
		<-release
		return answer(extracttest.ValidAnswer), nil
	}}
	a := storeRunner(e.Store, slow, fmt.Sprintf("A-%p", t))
	a.LeaseFor = leaseFor
	ctx := context.Background()
	if err := a.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Enqueue(ctx, []extract.Found{extracttest.Doc("slow.txt", extracttest.Invoice)}); err != nil {
		t.Fatal(err)
	}
	workErr := make(chan error, 1)
	go func() { workErr <- a.Work(ctx) }()
	select {
	case <-started:
	case <-time.After(waitFor(t)):
		t.Fatal("A never called the provider")
	}
	// Three lease terms: without renewals the lease has long expired.
	time.Sleep(3 * leaseFor)
	b := storeRunner(e.Store, alwaysValid(), fmt.Sprintf("B-%p", t))
	b.LeaseFor = leaseFor
	if err := b.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	bDone := make(chan error, 1)
	go func() { bDone <- b.Work(ctx) }()
	// B looks (its first claim) before A's call ends; A then commits.
	time.Sleep(leaseFor)
	close(release)
	if err := <-workErr; err != nil {
		t.Fatalf("A: %v", err)
	}
	if err := <-bDone; err != nil {
		t.Fatalf("B: %v", err)
	}
	as, err := a.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := b.Finish(ctx, time.Now(), "completed")
	if err != nil {
		t.Fatal(err)
	}
	if as.CommittedNow != 1 || as.StaleLeases != 0 || bs.CommittedNow != 0 || bs.LeaseRecoveries != 0 {
		t.Errorf("A committed %d (%d stale), B committed %d with %d lease recoveries; want 1, 0, 0, 0",
			as.CommittedNow, as.StaleLeases, bs.CommittedNow, bs.LeaseRecoveries)
	}
}
