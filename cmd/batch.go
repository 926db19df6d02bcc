package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/store"
)

func newCmdBatch(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "batch",
		Short: "List, inspect, collect and cancel the batches run --batch submitted",
		Long: `invx run --batch and invx work --batch send text documents through the
provider's batch API (OpenAI Batch API, Anthropic Message Batches) at half
the price; the provider answers within 24 hours. Each batch is recorded in
the database before it is sent, with the jobs it holds.

invx batch list shows the batches and their state; invx batch status ID
one batch and its requests; invx batch collect reads the results of the
batches that ended, through the same validation and fenced commit as a
synchronous run (a rerun of invx run --batch does the same); invx batch
cancel ID cancels a batch at the provider and sends its unanswered
documents back to the queue. See docs/batch.md.`,
		Example: `  invx batch list
  invx batch status 12
  invx batch collect
  invx batch collect 12 --wait
  invx batch cancel 12`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{err: fmt.Errorf("batch: unknown command %q", args[0]), try: "invx batch --help"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return &usageError{err: errors.New("batch: want a subcommand: list, status, collect or cancel"), try: "invx batch list"}
		},
	}
	c.AddCommand(newCmdBatchList(f, nil), newCmdBatchStatus(f, nil), newCmdBatchCollect(f, nil, false),
		newCmdBatchCollect(f, nil, true))
	return c
}

// batchJSON is one batch as --json prints it.
type batchJSON struct {
	ID           int64  `json:"id"`
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	RemoteID     string `json:"remote_id"`
	InputFileID  string `json:"input_file_id,omitempty"`
	State        string `json:"state"`
	RemoteStatus string `json:"remote_status"`
	Requests     int    `json:"requests"`
	Done         int    `json:"done"`
	Failed       int    `json:"failed"`
	Parent       int64  `json:"parent,omitempty"`
	Owner        string `json:"owner,omitempty"`
	LeaseExpires string `json:"lease_expires_at,omitempty"`
	RunID        string `json:"run_id"`
	CreatedAt    string `json:"created_at"`
	SubmittedAt  string `json:"submitted_at,omitempty"`
	EndedAt      string `json:"ended_at,omitempty"`
	Message      string `json:"message,omitempty"`
	// Items counts a batch's requests by where they stand (status only).
	Items map[string]int `json:"items,omitempty"`
}

func toBatchJSON(b *store.Batch) batchJSON {
	return batchJSON{ID: b.ID, Provider: b.Provider, Model: b.Model, RemoteID: b.RemoteID, InputFileID: b.InputFileID,
		State: b.State, RemoteStatus: b.RemoteStatus, Requests: b.Requests, Done: b.Done, Failed: b.Failed, Parent: b.Parent,
		Owner: b.Owner, LeaseExpires: ts(b.LeaseExpires), RunID: b.RunID, CreatedAt: ts(b.CreatedAt),
		SubmittedAt: ts(b.SubmittedAt), EndedAt: ts(b.EndedAt), Message: b.Message}
}

// BatchListOptions are the flags of invx batch list.
type BatchListOptions struct {
	JSON  bool
	Open  bool
	Limit int
}

func newCmdBatchList(f *Factory, runF func(context.Context, *BatchListOptions) error) *cobra.Command {
	opts := &BatchListOptions{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the batches, newest first",
		Long: `List shows each batch: its local id (what the other batch commands take),
provider and model, state (preparing: recorded, not known sent; submitted:
awaiting results; collected, cancelled, failed), the provider's own status,
the requests it holds and how many the provider reported done and failed.`,
		Example: `  invx batch list
  invx batch list --open --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return &usageError{err: fmt.Errorf("--limit %d: want 0 (all) or more", opts.Limit)}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return batchListRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the batches as a JSON array")
	c.Flags().BoolVar(&opts.Open, "open", false, "only batches still awaiting results (preparing or submitted)")
	c.Flags().IntVar(&opts.Limit, "limit", 50, "show at most this many batches (0: all)")
	return c
}

func batchListRun(ctx context.Context, f *Factory, opts *BatchListOptions) error {
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	p := &store.ListBatchesParams{Limit: opts.Limit}
	if opts.Open {
		p.States = []string{store.BatchPreparing, store.BatchSubmitted}
	}
	bs, err := st.ListBatches(ctx, p)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]batchJSON, 0, len(bs))
		for _, b := range bs {
			out = append(out, toBatchJSON(b))
		}
		return printJSON(f.IO.Out, out)
	}
	if len(bs) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "no batches")
		return nil
	}
	now := f.Now()
	tp := newTable(f.IO.Out, f.IO.OutTTY, "BATCH", "PROVIDER", "MODEL", "STATE", "STATUS", "REQUESTS", "DONE", "FAILED",
		"REMOTE ID", "AGE")
	for _, b := range bs {
		tp.addRow(strconv.FormatInt(b.ID, 10), b.Provider, b.Model, b.State, b.RemoteStatus, strconv.Itoa(b.Requests),
			strconv.Itoa(b.Done), strconv.Itoa(b.Failed), b.RemoteID, humanAge(now, b.CreatedAt))
	}
	return tp.render()
}

// BatchStatusOptions are the flags of invx batch status.
type BatchStatusOptions struct {
	Ref  string
	JSON bool
}

func newCmdBatchStatus(f *Factory, runF func(context.Context, *BatchStatusOptions) error) *cobra.Command {
	opts := &BatchStatusOptions{}
	c := &cobra.Command{
		Use:   "status ID",
		Short: "Show one batch and where its requests stand",
		Long: `Status shows one batch, named by its local id or the provider's batch id,
as the database last recorded it (the provider's status as of the last
poll), and its requests: awaiting an answer, committed, re-asked, back in
the queue, or stale (the job moved on).`,
		Example: `  invx batch status 12
  invx batch status batch_68f0c2 --json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("batch status: want one batch id"), try: "invx batch status 12 (invx batch list names them)"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return batchStatusRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the batch as one JSON object")
	return c
}

// getBatch finds a batch by local id or provider id.
func getBatch(ctx context.Context, st store.Store, ref string) (*store.Batch, error) {
	p := &store.GetBatchParams{RemoteID: ref}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		p = &store.GetBatchParams{ID: id}
	}
	b, err := st.GetBatch(ctx, p)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &usageError{err: fmt.Errorf("batch %s: not found", ref), try: "invx batch list"}
	}
	return b, err
}

func batchStatusRun(ctx context.Context, f *Factory, opts *BatchStatusOptions) error {
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	b, err := getBatch(ctx, st, opts.Ref)
	if err != nil {
		return err
	}
	items, err := st.BatchItems(ctx, &store.BatchItemsParams{BatchID: b.ID})
	if err != nil {
		return err
	}
	out := toBatchJSON(b)
	out.Items = map[string]int{}
	for _, it := range items {
		switch {
		case it.AttemptOutcome == "" && it.Held:
			out.Items["awaiting"]++
		case it.AttemptOutcome == "":
			out.Items["moved_on"]++
		default:
			out.Items[it.AttemptOutcome]++
		}
	}
	if opts.JSON {
		return printJSON(f.IO.Out, out)
	}
	w := f.IO.Out
	fmt.Fprintf(w, "batch %d  %s %s  %s\n", b.ID, b.Provider, safeCell(b.Model), b.State)
	if b.RemoteID != "" {
		fmt.Fprintf(w, "  remote id       %s\n", safeCell(b.RemoteID))
	}
	fmt.Fprintf(w, "  provider status %s (done %d, failed %d of %d)\n", safeCell(b.RemoteStatus), b.Done, b.Failed, b.Requests)
	fmt.Fprintf(w, "  created         %s (run %s)\n", ts(b.CreatedAt), b.RunID)
	if !b.SubmittedAt.IsZero() {
		fmt.Fprintf(w, "  submitted       %s\n", ts(b.SubmittedAt))
	}
	if !b.EndedAt.IsZero() {
		fmt.Fprintf(w, "  ended           %s\n", ts(b.EndedAt))
	}
	if b.Parent != 0 {
		fmt.Fprintf(w, "  re-asks of      batch %d\n", b.Parent)
	}
	if b.Message != "" {
		fmt.Fprintf(w, "  message         %s\n", safeCell(b.Message))
	}
	fmt.Fprintf(w, "  requests        %s\n", countsString(out.Items, ""))
	if b.State == store.BatchPreparing || b.State == store.BatchSubmitted {
		fmt.Fprintf(f.IO.ErrOut, "collect it with invx batch collect %d (it waits with --wait)\n", b.ID)
	}
	return nil
}

// BatchCollectOptions are the flags of invx batch collect and cancel.
type BatchCollectOptions struct {
	Ref        string
	Wait       bool
	RepairSync bool
	JSON       bool
	Quiet      bool
	Poll       time.Duration
	Lease      time.Duration
	Provider   ProviderOptions
	cancel     bool
}

func newCmdBatchCollect(f *Factory, runF func(context.Context, *BatchCollectOptions) error, cancel bool) *cobra.Command {
	opts := &BatchCollectOptions{cancel: cancel}
	c := &cobra.Command{
		Use:   "collect [ID]",
		Short: "Collect the batches that ended (all open ones, or ID)",
		Long: `Collect takes the open batches (or batch ID) that no other process is
polling, asks the provider for their status and, for each that ended,
reads its results: every answer goes through the same strict validation
and fenced commit as a synchronous run; invalid answers are re-asked in a
follow-up batch (or synchronously with --repair-sync); expired, cancelled
or missing requests go back to the queue. A batch still in progress is
left as it is unless --wait, which polls until it ends. A batch recorded
but never known sent (the process died) is adopted, or sent now.

The provider and model come from the batch; the API key from the
environment (OPENAI_API_KEY, ANTHROPIC_API_KEY), the base URL from
--base-url or OPENAI_BASE_URL.`,
		Example: `  invx batch collect
  invx batch collect 12 --wait`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{err: errors.New("batch collect: at most one batch id"), try: "invx batch collect 12"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			if opts.Lease < time.Second || opts.Poll <= 0 {
				return &usageError{err: errors.New("--lease must be at least 1s and --batch-poll positive")}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return batchCollectRun(c.Context(), f, opts)
		},
	}
	if cancel {
		c.Use, c.Short = "cancel ID", "Cancel a batch at the provider; its unanswered documents go back to the queue"
		c.Long = `Cancel asks the provider to cancel batch ID, waits until the provider
reports it ended, and collects it: requests the provider answered before
the cancel are committed (they are paid for), the others go back to the
queue for the next run. A batch recorded but never sent is cancelled
without a call. If another process is polling the batch, that process
collects it.`
		c.Example = `  invx batch cancel 12`
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("batch cancel: want one batch id"), try: "invx batch cancel 12 (invx batch list names them)"}
			}
			return nil
		}
	}
	fl := c.Flags()
	if !cancel {
		fl.BoolVar(&opts.Wait, "wait", false, "poll until every batch ended, then collect it")
	}
	fl.BoolVar(&opts.RepairSync, "repair-sync", false, "re-ask invalid answers through the synchronous API, not in a follow-up batch")
	fl.BoolVar(&opts.JSON, "json", false, "print the run's summary as one JSON object on stdout")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no summary unless something needs review")
	fl.DurationVar(&opts.Poll, "batch-poll", 5*time.Second, "first wait between two status polls (doubles up to 1m)")
	fl.DurationVar(&opts.Lease, "lease", defaultLease, "batch lease; renewed at every poll")
	fl.StringVar(&opts.Provider.BaseURL, "base-url", "", "API base URL (openai: env OPENAI_BASE_URL)")
	fl.StringVar(&opts.Provider.Mode, "anthropic-mode", "json_schema", "anthropic: json_schema or tool, as the batch was sent")
	fl.DurationVar(&opts.Provider.Timeout, "timeout", 0, "per-request timeout (0: the provider's default)")
	return c
}
