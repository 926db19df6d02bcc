package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/invx/invx/store"
)

// docV is Doc for a job of the given schema version: the version is part
// of the job key, so one text makes one job per version.
func docV(tenant, version, path, text string) store.Document {
	d := Doc(tenant, path, text)
	k := sha256.Sum256([]byte(tenant + "\x00invoice-summary\x00" + version + "\x00" + d.Digest))
	d.JobKey = hex.EncodeToString(k[:])
	return d
}

// testClaimBySchema: a claim (and Pending) with SchemaVersion sees only
// that version's jobs, of every claimable kind (queued, and a lease that
// expired is recovered only by a claimer of its version); without it,
// every version.
func testClaimBySchema(t *testing.T, s store.Store) {
	ctx := context.Background()
	const v1, v2 = "invoice-summary-v1", "invoice-v2"
	enq := func(tenant, version string, docs ...store.Document) {
		t.Helper()
		_, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: tenant, RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: version, OnChange: store.OnChangeHold, Docs: docs, Now: t0})
		noErr(t, "enqueue "+version, err)
	}
	a1 := docV("t1", v1, "a.txt", "alpha")
	a2 := docV("t1", v2, "a.txt", "alpha")
	b2 := docV("t2", v2, "b.txt", "beta")
	enq("t1", v1, a1)
	enq("t1", v2, a2)
	enq("t2", v2, b2)

	pend := func(tenant, version string) int {
		t.Helper()
		p, err := s.Pending(ctx, &store.PendingParams{Tenant: tenant, SchemaVersion: version})
		noErr(t, "pending", err)
		return p.Total()
	}
	eq(t, "pending t1, every version", pend("t1", ""), 2)
	eq(t, "pending t1 v2", pend("t1", v2), 1)
	eq(t, "pending all tenants v2", pend("", v2), 2)

	claimV := func(tenant, version string, now time.Time) []string {
		t.Helper()
		ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: tenant, Owner: "w-" + version, RunID: "run-" + version, Limit: 10,
			LeaseFor: time.Minute, Now: now, SchemaVersion: version})
		noErr(t, "claim "+version, err)
		var keys []string
		for _, l := range ls {
			eq(t, "leased job's version", l.SchemaVersion, version)
			keys = append(keys, l.JobKey)
		}
		slices.Sort(keys)
		return keys
	}
	want := []string{a2.JobKey, b2.JobKey}
	slices.Sort(want)
	eqSlice(t, "v2 claim over every tenant", claimV("", v2, t0), want)
	eqSlice(t, "a second v2 claim", claimV("t1", v2, t0), nil)
	eq(t, "pending t1 v1, untouched", pend("t1", v1), 1)

	// The v2 leases expire; a v1 claimer takes only its own queued job and
	// leaves them, a v2 claimer recovers them.
	later := t0.Add(2 * time.Minute)
	eqSlice(t, "v1 claim after the v2 leases expired", claimV("", v1, later), []string{a1.JobKey})
	eqSlice(t, "v2 claim recovers its expired leases", claimV("", v2, later), want)
}

// testShadowJobStaysShadow: a job enqueued by a shadow run commits as a
// shadow result, publishing nothing, even when the worker that commits it
// (an invx work after the shadow run was interrupted) does not ask for
// shadow; a job enqueued normally still publishes.
func testShadowJobStaysShadow(t *testing.T, s store.Store) {
	ctx := context.Background()
	shadowDoc, liveDoc := Doc("t1", "a.txt", "alpha"), Doc("t1", "b.txt", "beta")
	_, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
		SchemaVersion: "invoice-summary-v1", OnChange: store.OnChangeHold, Docs: []store.Document{shadowDoc}, Now: t0, Shadow: true})
	noErr(t, "enqueue shadow", err)
	enqueue(t, s, "t1", store.OnChangeHold, liveDoc)
	j, err := s.GetJob(ctx, &store.GetJobParams{Tenant: "t1", Ref: shadowDoc.JobKey})
	noErr(t, "get job", err)
	eq(t, "job shadow", j.Shadow, true)
	ev := store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: []byte(`{}`)}
	for _, l := range claim(t, s, "t1", "w", 2, t0) {
		_, err := commit(s, l, t0, ev) // commit asks for no shadow
		noErr(t, "commit", err)
	}
	for _, tc := range []struct {
		key    string
		shadow bool
		events int
	}{{shadowDoc.JobKey, true, 0}, {liveDoc.JobKey, false, 1}} {
		res, err := s.GetResult(ctx, &store.GetResultParams{Tenant: "t1", JobKey: tc.key})
		noErr(t, "get result", err)
		eq(t, "result shadow", res.Shadow, tc.shadow)
		evs, err := s.ListOutbox(ctx, &store.ListOutboxParams{Tenant: "t1", JobKey: tc.key})
		noErr(t, "list outbox", err)
		eq(t, "outbox rows", len(evs), tc.events)
	}
}
