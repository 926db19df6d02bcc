package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// driverStore is a store that only names its driver: building a runner
// reads nothing else.
type driverStore struct {
	store.Store
	driver string
}

func (s driverStore) Driver() string { return s.driver }

type nameProvider struct{}

func (nameProvider) Name() string { return "rules" }
func (nameProvider) Extract(context.Context, *extract.Request) (*extract.Response, error) {
	return nil, errors.New("not called")
}

// runnerPolicy is what must not differ between the commands that work the
// queue: the settings that drifted when each command built its own runner.
type runnerPolicy struct {
	AliveFunc, NowFunc, Logger, StoreClock                          bool
	LeaseFor, MaxBackoff, DBRetry                                   time.Duration
	MaxRecoveries, MaxAttempts, Concurrency, MaxUnreachable, Repair int
	OwnerIsRunID                                                    bool
	CallTimeoutSet                                                  bool
}

func policyOf(r *extract.Runner) runnerPolicy {
	return runnerPolicy{AliveFunc: r.AliveFunc != nil, NowFunc: r.NowFunc != nil, Logger: r.Logger != nil,
		StoreClock: r.StoreClock, LeaseFor: r.LeaseFor, MaxBackoff: r.MaxBackoff, DBRetry: r.DBRetry,
		MaxRecoveries: r.MaxRecoveries, MaxAttempts: r.MaxAttempts, Concurrency: r.Concurrency,
		MaxUnreachable: r.MaxUnreachable, Repair: r.Repair,
		OwnerIsRunID: r.RunID != "" && strings.HasSuffix(r.Owner, r.RunID), CallTimeoutSet: r.CallTimeout > 0}
}

// parsed runs a command's flag parsing and checks with args, and returns
// the runner options its runF was handed.
func parsed(t *testing.T, build func(capture func(*runnerOptions)) *cobra.Command, args ...string) *runnerOptions {
	t.Helper()
	var got *runnerOptions
	c := build(func(o *runnerOptions) { got = o })
	c.SetArgs(args)
	c.SetOut(new(bytes.Buffer))
	c.SetErr(new(bytes.Buffer))
	if err := c.Execute(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if got == nil {
		t.Fatalf("%v: runF not called", args)
	}
	return got
}

// Every command that works the queue builds its runner through newRunner
// from its own flags: with each command's defaults the runners must agree
// on leases, backoff, liveness, the store clock and the resilience bounds.
func TestRunnerSameForEveryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var prov nameProvider
	commands := []struct {
		name  string
		build func(capture func(*runnerOptions)) *cobra.Command
		args  []string
	}{
		{"run", func(capture func(*runnerOptions)) *cobra.Command {
			return newCmdRun(nil, func(_ context.Context, o *RunOptions) error {
				capture(o.runnerOptions(prov, 1, "acme"))
				return nil
			})
		}, []string{dir}},
		{"work", func(capture func(*runnerOptions)) *cobra.Command {
			return newCmdWork(nil, func(_ context.Context, o *WorkOnlyOptions) error {
				capture(o.Work.runnerOptions(prov, 1, "acme"))
				return nil
			})
		}, nil},
		{"retry", func(capture func(*runnerOptions)) *cobra.Command {
			return newCmdRetry(nil, func(_ context.Context, o *RetryOptions) error {
				capture(o.Work.runnerOptions(prov, 1, "acme"))
				return nil
			})
		}, []string{"--state", "failed"}},
		{"review accept", func(capture func(*runnerOptions)) *cobra.Command {
			return newCmdReviewAccept(nil, func(_ context.Context, o *ReviewAcceptOptions) error {
				capture(o.Work.runnerOptions(prov, 1, "acme"))
				return nil
			})
		}, []string{"3f2a9c1e"}},
		{"eval", func(capture func(*runnerOptions)) *cobra.Command {
			return newCmdEval(nil, func(_ context.Context, o *EvalOptions) error {
				capture(o.runnerOptions(prov, &o.Defaults, schema.Latest(), "acme", resolveRepair(o.Repair, 1), o.MaxAttempts))
				return nil
			})
		}, []string{dir}},
	}
	f := &Factory{Now: time.Now}
	for _, driver := range []string{"sqlite", "postgres"} {
		st := driverStore{driver: driver}
		want := runnerPolicy{AliveFunc: true, NowFunc: true, Logger: true, StoreClock: driver == "postgres",
			LeaseFor: defaultLease, MaxBackoff: defaultMaxBackoff, DBRetry: defaultDBRetry,
			MaxRecoveries: extract.DefaultMaxRecoveries, MaxAttempts: defaultMaxAttempts, Concurrency: defaultConcurrency,
			MaxUnreachable: defaultMaxUnreachable, Repair: 1, OwnerIsRunID: true, CallTimeoutSet: true}
		for _, c := range commands {
			t.Run(driver+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				o := parsed(t, c.build, append(c.args, "--timeout", "30s")...)
				if diff := cmp.Diff(want, policyOf(newRunner(f, st, o, nil))); diff != "" {
					t.Errorf("runner of invx %s (-want +got):\n%s", c.name, diff)
				}
			})
		}
	}
}
