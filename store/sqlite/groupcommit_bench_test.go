package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
	"github.com/invx/invx/store/storetest"
)

// BenchmarkGroupCommit commits b.N leased documents from many goroutines
// at once, each as a replay run commits an invoice-v2 answer: a result of
// about a kilobyte, its identity for the duplicate lookup and four outbox
// events. It reports the process's CPU time per commit (user+sys, less
// sensitive to a busy machine than ns/op) and the commits per group
// transaction.
func BenchmarkGroupCommit(b *testing.B) {
	for _, workers := range []int{8, 64} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "invx.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ls := leaseDocs(b, s, b.N)
			result := []byte(`{"schema_version":"invoice-v2","title":"` + strings.Repeat("x", 900) + `"}`)
			work := make(chan *store.Lease)
			var wg sync.WaitGroup
			var failed sync.Once
			before := s.CommitStats()
			cpu0 := cpuTime()
			b.ResetTimer()
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for l := range work {
						var evs []store.OutboxInput
						for _, a := range []string{"a1", "a2", "a3", store.EventCommitted} {
							evs = append(evs, store.OutboxInput{ActionID: a, Kind: "review_tax",
								Payload: []byte(`{"event":"x","result":` + string(result) + `}`)})
						}
						_, err := s.Commit(ctx, &store.CommitParams{JobID: l.JobID, Tenant: l.Tenant, JobKey: l.JobKey,
							Token: l.Token, AttemptID: l.AttemptID, RunID: "run-1", SchemaVersion: "invoice-v2", Result: result,
							Outbox: evs, Attempt: store.AttemptInfo{Outcome: store.OutcomeSucceeded, Provider: "replay"},
							Review: &store.CommitReview{Identity: &store.DocIdentity{NameKey: "acme", NumberKey: l.JobKey[:12]}},
							Now:    time.Now()})
						if err != nil {
							failed.Do(func() { b.Error(err) })
						}
					}
				}()
			}
			for _, l := range ls {
				work <- l
			}
			close(work)
			wg.Wait()
			b.StopTimer()
			after := s.CommitStats()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			if txs := after.Transactions - before.Transactions; txs > 0 {
				b.ReportMetric(float64(after.Commits-before.Commits)/float64(txs), "commits/tx")
			}
		})
	}
}

// leaseDocs enqueues n documents and leases them all.
func leaseDocs(b *testing.B, s store.Store, n int) []*store.Lease {
	b.Helper()
	ctx := context.Background()
	for lo := 0; lo < n; lo += 500 {
		var docs []store.Document
		for i := lo; i < min(lo+500, n); i++ {
			docs = append(docs, storetest.Doc("t1", fmt.Sprintf("%06d.txt", i), fmt.Sprintf("invoice %d", i)))
		}
		if _, err := s.Enqueue(ctx, &store.EnqueueParams{Tenant: "t1", RunID: "run-1", Transformation: "invoice-summary",
			SchemaVersion: "invoice-v2", OnChange: store.OnChangeHold, Docs: docs, Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
	var out []*store.Lease
	for len(out) < n {
		ls, err := s.Claim(ctx, &store.ClaimParams{Tenant: "t1", Owner: "bench", RunID: "run-1", Limit: 500,
			LeaseFor: time.Hour, Now: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		if len(ls) == 0 {
			b.Fatalf("leased %d of %d", len(out), n)
		}
		out = append(out, ls...)
	}
	return out
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
