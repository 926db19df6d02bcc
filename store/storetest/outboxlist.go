package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// testListOutboxFilters covers ListOutbox's filters together: one job's
// events (JobKey, which ListOutbox and ListOutboxEvents used to split
// between them), a tenant's, every tenant's, undelivered only, and Limit.
// Two jobs of one tenant and a third tenant's job with the same text make
// each filter matter: a driver that drops one returns another job's events.
func testListOutboxFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b, c := Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta"), Doc("t2", "a.txt", "alpha")
	enqueue(t, s, "t1", store.OnChangeHold, a, b)
	enqueue(t, s, "t2", store.OnChangeHold, c)
	for _, tenant := range []string{"t1", "t1", "t2"} {
		l := claim(t, s, tenant, "w", 1, t0)[0]
		ev := store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(`{}`)}
		if _, err := commit(s, l, t0, ev); err != nil {
			t.Fatal(err)
		}
	}
	// Deliver b's event, so Pending leaves it out.
	claimed, err := s.ClaimOutbox(ctx, &store.ClaimOutboxParams{Tenant: "t1", Owner: "d", Limit: 2, LeaseFor: time.Minute, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range claimed {
		if e.JobKey != b.JobKey {
			continue
		}
		if err := s.FinishOutbox(ctx, &store.FinishOutboxParams{ID: e.ID, Token: e.Token, State: store.OutboxDelivered, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		p    store.ListOutboxParams
		want []string // tenant/job key, oldest first
	}{
		{"one job", store.ListOutboxParams{Tenant: "t1", JobKey: a.JobKey}, []string{"t1/" + a.JobKey}},
		{"one job of another tenant", store.ListOutboxParams{Tenant: "t2", JobKey: c.JobKey}, []string{"t2/" + c.JobKey}},
		{"a job key under the wrong tenant", store.ListOutboxParams{Tenant: "t1", JobKey: c.JobKey}, []string{}},
		{"a delivered job, pending only", store.ListOutboxParams{Tenant: "t1", JobKey: b.JobKey, Pending: true}, []string{}},
		{"a tenant", store.ListOutboxParams{Tenant: "t1"}, []string{"t1/" + a.JobKey, "t1/" + b.JobKey}},
		{"a tenant, pending only", store.ListOutboxParams{Tenant: "t1", Pending: true}, []string{"t1/" + a.JobKey}},
		{"every tenant", store.ListOutboxParams{}, []string{"t1/" + a.JobKey, "t1/" + b.JobKey, "t2/" + c.JobKey}},
		{"every tenant, limited", store.ListOutboxParams{Limit: 1}, []string{"t1/" + a.JobKey}},
	}
	for _, tc := range tests {
		evs, err := s.ListOutbox(ctx, &tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := []string{}
		for _, e := range evs {
			got = append(got, e.Tenant+"/"+e.JobKey)
		}
		eqSlice(t, tc.name, got, tc.want)
	}
}
