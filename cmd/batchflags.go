package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/anthropic"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/internal/redact"
	"github.com/invx/invx/store"
)

// BatchFlags are the flags of invx run --batch and invx work --batch.
type BatchFlags struct {
	Batch      bool
	Detach     bool
	RepairSync bool
	Size       int
	// Poll is the first wait between two status polls; it doubles up to
	// a minute.
	Poll time.Duration
}

func addBatchFlags(fl *pflag.FlagSet, o *BatchFlags) {
	fl.BoolVar(&o.Batch, "batch", false, "send text documents through the provider's batch API (openai, anthropic): half the price, results within 24 h")
	fl.BoolVar(&o.Detach, "detach", false, "with --batch: submit, print the batch ids and exit 0; a later run or invx batch collect collects")
	fl.BoolVar(&o.RepairSync, "repair-sync", false, "with --batch: re-ask invalid answers through the synchronous API, not in a follow-up batch")
	fl.IntVar(&o.Size, "batch-size", extract.DefaultBatchSize, "with --batch: requests per batch (the provider's limits may cut it further)")
	fl.DurationVar(&o.Poll, "batch-poll", 5*time.Second, "with --batch: first wait between two status polls (doubles up to 1m)")
}

// check validates the batch flags against the provider flags.
func (o *BatchFlags) check(p *ProviderOptions, try string) error {
	if !o.Batch {
		if o.Detach || o.RepairSync {
			return &usageError{err: errors.New("--detach and --repair-sync need --batch"), try: try}
		}
		return nil
	}
	if o.Size < 1 {
		return &usageError{err: fmt.Errorf("--batch-size %d: want at least 1", o.Size), try: try}
	}
	if o.Poll <= 0 {
		return &usageError{err: fmt.Errorf("--batch-poll %s: want a positive duration", o.Poll), try: try}
	}
	if _, ok := batchProviders[batchProviderName(p)]; !ok {
		return &usageError{err: fmt.Errorf("--batch: provider %s has no batch API (want openai or anthropic, or --provider auto with --text-provider openai or anthropic)",
			batchProviderName(p)), try: try}
	}
	return nil
}

// batchProviders are the providers with a batch API.
var batchProviders = map[string]bool{"openai": true, "anthropic": true}

// batchProviderName is the provider whose batch API the text documents go
// to: --provider, or --text-provider under auto.
func batchProviderName(p *ProviderOptions) string {
	if p.Name == extract.AutoName {
		return cmp.Or(p.TextProvider, "rules")
	}
	return p.Name
}

// batchClientFor builds the batch client of the provider name with the
// provider flags (model, base URL, timeout, max tokens, mode) and the
// environment's key, wrapped so that no secret reaches the store or a log.
// Only cmd imports concrete adapters, and it chooses them here, by name.
func (f *Factory) batchClientFor(name string, o *ProviderOptions) (extract.BatchClient, error) {
	var c extract.BatchClient
	var err error
	switch name {
	case "openai":
		c, err = openai.NewBatch(openai.Config{BaseURL: cmp.Or(o.BaseURL, f.Env("OPENAI_BASE_URL")), APIKey: f.Env("OPENAI_API_KEY"),
			Model: o.Model, Timeout: o.Timeout, MaxTokens: o.MaxTokens})
	case "anthropic":
		c, err = anthropic.NewBatch(anthropic.Config{BaseURL: o.BaseURL, APIKey: f.Env("ANTHROPIC_API_KEY"), Model: o.Model,
			Timeout: o.Timeout, MaxTokens: o.MaxTokens, Mode: o.Mode})
	default:
		return nil, &usageError{err: fmt.Errorf("provider %s has no batch API (want openai or anthropic)", name)}
	}
	if err != nil {
		return nil, providerConfigErr(err)
	}
	for _, u := range []string{o.BaseURL, f.Env("OPENAI_BASE_URL")} {
		f.addURLSecret(u)
	}
	return &scrubBatch{BatchClient: c, secrets: f.scrubber()}, nil
}

// scrubBatch scrubs a batch client's answers and errors, like
// scrubProvider: a model may echo a key back in an answer.
type scrubBatch struct {
	extract.BatchClient
	secrets *redact.Scrubber
}

func (c *scrubBatch) Submit(ctx context.Context, tag string, reqs []extract.BatchRequest) (extract.BatchInfo, error) {
	info, err := c.BatchClient.Submit(ctx, tag, reqs)
	return info, scrubError(c.secrets, err)
}

func (c *scrubBatch) Find(ctx context.Context, tag string, since time.Time, n int) (extract.BatchInfo, bool, error) {
	info, ok, err := c.BatchClient.Find(ctx, tag, since, n)
	return info, ok, scrubError(c.secrets, err)
}

func (c *scrubBatch) Status(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	info, err := c.BatchClient.Status(ctx, remoteID)
	info.Message = c.secrets.String(info.Message)
	return info, scrubError(c.secrets, err)
}

func (c *scrubBatch) Cancel(ctx context.Context, remoteID string) (extract.BatchInfo, error) {
	info, err := c.BatchClient.Cancel(ctx, remoteID)
	return info, scrubError(c.secrets, err)
}

func (c *scrubBatch) Results(ctx context.Context, remoteID string, fn func(extract.BatchLine) error) error {
	err := c.BatchClient.Results(ctx, remoteID, func(l extract.BatchLine) error {
		if l.Resp != nil {
			clean := *l.Resp
			clean.Output = c.secrets.Bytes(l.Resp.Output)
			clean.Model = c.secrets.String(l.Resp.Model)
			clean.RequestID = c.secrets.String(l.Resp.RequestID)
			l.Resp = &clean
		}
		l.Err = scrubError(c.secrets, l.Err)
		return fn(l)
	})
	return scrubError(c.secrets, err)
}

// batchSetup is how a delivery works through a batch API.
type batchSetup struct {
	client extract.BatchClient
	flags  BatchFlags
	// report is what the last workBatch did.
	report *extract.BatchReport
}

// newBatchSetup builds the batch client of the provider flags, or nil when
// --batch is off.
func (f *Factory) newBatchSetup(flags BatchFlags, p *ProviderOptions) (*batchSetup, error) {
	if !flags.Batch {
		return nil, nil
	}
	c, err := f.batchClientFor(batchProviderName(p), p)
	if err != nil {
		return nil, err
	}
	return &batchSetup{client: c, flags: flags}, nil
}

// workBatch works the queue through the batch API, with a progress bar of
// the requests done and the batches' state when bar is set.
func (d *delivery) workBatch(ctx context.Context, bar bool) error {
	b := d.batch
	o := extract.BatchOptions{Client: b.client, Size: b.flags.Size, Detach: b.flags.Detach, RepairSync: b.flags.RepairSync,
		PollMin: b.flags.Poll}
	if bar {
		p := newBatchBar(d.f.IO.ErrOut)
		o.ProgressFunc = p.update
		defer p.finish()
	}
	rep, err := d.r.WorkBatch(ctx, o)
	b.report = rep
	return err
}

// printDetached prints the batches a detached run submitted or left open,
// one per line on stdout, for invx batch status and collect.
func printDetached(f *Factory, bs *batchSetup) error {
	if bs == nil || bs.report == nil {
		return nil
	}
	tp := newTable(f.IO.Out, f.IO.OutTTY, "BATCH", "REMOTE ID", "REQUESTS", "STATE")
	seen := map[int64]bool{}
	for _, b := range append(append([]*store.Batch{}, bs.report.Submitted...), bs.report.Open...) {
		if seen[b.ID] || b.State != store.BatchSubmitted && b.State != store.BatchPreparing {
			continue
		}
		seen[b.ID] = true
		tp.addRow(strconv.FormatInt(b.ID, 10), b.RemoteID, strconv.Itoa(b.Requests), b.State)
	}
	if len(seen) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no batch submitted: nothing was queued for the batch API")
		return nil
	}
	if err := tp.render(); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.ErrOut, "check on them with invx batch list; collect with invx batch collect (or a later run)")
	return nil
}

// joinIDs lists batch ids for people: "12, 13".
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
