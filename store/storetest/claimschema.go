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
