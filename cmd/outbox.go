package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/command"
	"github.com/invx/invx/outbox"
	"github.com/invx/invx/store"
)

func newCmdOutbox(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "outbox",
		Short: "List, deliver and retry the events committed results published",
		Long: `Every committed result publishes events in the same transaction that
commits it: one per action item (kind verify_purchase_order, review_tax or
contact_supplier), keyed <job_key>:action:<action_id>, and one
invoice.committed, keyed <job_key>:invoice.committed. Shadow results publish
none.

invx outbox list shows them; invx outbox deliver sends the pending ones to a
webhook or a command, exactly once as far as the receiver applies each
Idempotency-Key once; invx outbox retry makes the events deliver parked as
failed pending again.`,
		Example: `  invx outbox list --pending
  invx outbox deliver --webhook https://erp.example/hooks/invx --header "Authorization: Bearer $TOKEN"
  invx outbox deliver --command "./post-to-ledger.sh"
  invx outbox retry && invx outbox deliver --webhook https://erp.example/hooks/invx`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageError{err: fmt.Errorf("outbox: unknown command %q", args[0]), try: "invx outbox --help"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return &usageError{err: errors.New("outbox: want a subcommand: list, deliver or retry"), try: "invx outbox list --pending"}
		},
	}
	c.AddCommand(newCmdOutboxList(f, nil), newCmdOutboxDeliver(f, nil), newCmdOutboxRetry(f, nil))
	return c
}

// OutboxListOptions are the flags of invx outbox list.
type OutboxListOptions struct {
	Pending    bool
	Limit      int
	JSON       bool
	AllTenants bool
}

func newCmdOutboxList(f *Factory, runF func(context.Context, *OutboxListOptions) error) *cobra.Command {
	opts := &OutboxListOptions{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List outbox events: key, kind, state, attempts, age, last error",
		Long: `List prints the tenant's outbox events, oldest first: the event key
(<job_key>:<action_id>; on a terminal the job key is cut to 12 hex digits),
the kind, the state (pending, delivered, or failed: parked after a refusal
or after --max-attempts), the delivery attempts so far, the age and the last
delivery error.

--pending lists only the events not delivered yet: pending and failed.
On a terminal the list is an aligned table; piped, it is one tab-separated
line per event without a header; --json prints a JSON array.`,
		Example: `  invx outbox list --pending
  invx outbox list --json --limit 0 | jq -r '.[] | select(.state == "failed") | .event_key'`,
		Args: noArgs("outbox list", "", "invx outbox list --pending"),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return &usageError{err: fmt.Errorf("--limit %d: want 0 (no limit) or more", opts.Limit)}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return outboxListRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&opts.Pending, "pending", false, "only events not delivered yet (pending or failed)")
	fl.IntVar(&opts.Limit, "limit", 100, "at most this many events, oldest first (0: all)")
	fl.BoolVar(&opts.JSON, "json", false, "print the events as a JSON array")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "list the events of every tenant, not only --tenant's")
	return c
}

// outboxItem is one entry of invx outbox list --json.
type outboxItem struct {
	EventKey    string `json:"event_key"`
	Tenant      string `json:"tenant"`
	JobKey      string `json:"job_key"`
	ActionID    string `json:"action_id"`
	Kind        string `json:"kind"`
	State       string `json:"state"`
	Attempts    int    `json:"attempts"`
	CreatedAt   string `json:"created_at"`
	DeliveredAt string `json:"delivered_at,omitempty"`
	NextTryAt   string `json:"next_try_at,omitempty"`
	LastError   string `json:"last_error,omitempty"`
}

func outboxListRun(ctx context.Context, f *Factory, opts *OutboxListOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	now := f.Now()
	p := &store.ListOutboxParams{Pending: opts.Pending}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	if opts.Limit > 0 {
		// One more than asked, to tell the user when the list was cut.
		p.Limit = opts.Limit + 1
	}
	evs, err := st.ListOutbox(ctx, p)
	if err != nil {
		return err
	}
	more := opts.Limit > 0 && len(evs) > opts.Limit
	if more {
		evs = evs[:opts.Limit]
	}

	if opts.JSON {
		items := make([]outboxItem, 0, len(evs))
		for _, e := range evs {
			it := outboxItem{EventKey: e.EventKey, Tenant: e.Tenant, JobKey: e.JobKey, ActionID: e.ActionID, Kind: e.Kind,
				State: e.State, Attempts: e.Attempts, CreatedAt: ts(e.CreatedAt), DeliveredAt: ts(e.DeliveredAt),
				LastError: e.LastError}
			if e.State == store.OutboxPending {
				it.NextTryAt = ts(e.NextTryAt)
			}
			items = append(items, it)
		}
		if err := printJSON(f.IO.Out, items); err != nil {
			return err
		}
	} else if len(evs) > 0 {
		header := []string{"EVENT KEY", "KIND", "STATE", "ATTEMPTS", "AGE", "LAST ERROR"}
		if opts.AllTenants {
			header = append([]string{"TENANT"}, header...)
		}
		tp := newTable(f.IO.Out, f.IO.OutTTY, header...)
		tp.capColumn(len(header)-1, 60)
		for _, e := range evs {
			key := e.EventKey
			if f.IO.OutTTY {
				key = shortKey(e.JobKey) + strings.TrimPrefix(e.EventKey, e.JobKey)
			}
			row := []string{key, e.Kind, e.State, fmt.Sprint(e.Attempts), humanAge(now, e.CreatedAt), e.LastError}
			if opts.AllTenants {
				row = append([]string{e.Tenant}, row...)
			}
			tp.addRow(row...)
		}
		if err := tp.render(); err != nil {
			return err
		}
	}
	switch {
	case len(evs) == 0 && !opts.JSON && opts.Pending:
		fmt.Fprintln(f.IO.ErrOut, "no pending outbox events")
	case len(evs) == 0 && !opts.JSON:
		fmt.Fprintln(f.IO.ErrOut, "no outbox events")
	case more:
		fmt.Fprintf(f.IO.ErrOut, "showing the oldest %d events; there are more (--limit 0 shows all)\n", opts.Limit)
	}
	return nil
}

// OutboxDeliverOptions are the flags of invx outbox deliver.
type OutboxDeliverOptions struct {
	Webhook     string
	Headers     []string
	Command     string
	MaxAttempts int
	Concurrency int
	Timeout     time.Duration
	Wait        time.Duration
	MaxBackoff  time.Duration
	AllTenants  bool

	// Parsed from the flags by RunE.
	header http.Header
	argv   []string
}

func newCmdOutboxDeliver(f *Factory, runF func(context.Context, *OutboxDeliverOptions) error) *cobra.Command {
	opts := &OutboxDeliverOptions{}
	c := &cobra.Command{
		Use:   "deliver (--webhook URL [--header K:V]... | --command CMD)",
		Short: "Send pending outbox events to a webhook or a command",
		Long: `Deliver sends the tenant's pending outbox events, oldest first, and marks
each delivered only when the receiver accepted it.

--webhook URL: an HTTP POST of the event's JSON payload with the headers
Content-Type: application/json and Idempotency-Key: <event key> (as invx
outbox list prints it), plus every --header. A 2xx answer is a delivery. 408, 429, 5xx, a
connection error or a timeout are retried with exponential backoff and full
jitter (a Retry-After is honoured, capped by --max-backoff). Any other
status parks the event as failed, with the status. Redirects are not
followed.

--command CMD: the program (split like a shell would, but no shell runs)
gets the payload on stdin and INVX_EVENT_KEY, INVX_EVENT_KIND, INVX_TENANT
and INVX_JOB_KEY in its environment. Exit 0 is a delivery, 75
(EX_TEMPFAIL) or a timeout is retried, any other status parks the event as
failed with the start of its stderr.

An event that still fails after --max-attempts attempts (over all runs) is
parked as failed; invx outbox retry makes parked events pending again. Deliver keeps going until no event is due; it waits for
events whose retry time comes within --wait, and leaves later ones pending
for the next run. A rerun never sends a delivered event again. A receiver
may see an event twice if invx was killed between its answer and the
record of it: apply each Idempotency-Key once.

The summary (delivered, retried, failed) goes to stderr. Exit status: 0 when
every event was delivered, 3 when events were parked as failed by this run
or are still pending, 1 on a database error.`,
		Example: `  invx outbox deliver --webhook https://erp.example/hooks/invx
  invx outbox deliver --webhook https://erp.example/hooks/invx --header "Authorization: Bearer $TOKEN" --header "X-Source: invx"
  invx outbox deliver --command "./post-to-ledger.sh --env prod" --timeout 10s
  invx --tenant acme outbox deliver --webhook http://127.0.0.1:8080/events --max-attempts 5 --wait 0s`,
		Args: noArgs("outbox deliver", "", "invx outbox deliver --webhook URL"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return outboxDeliverRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Webhook, "webhook", "", "POST each event to this http(s) URL")
	fl.StringArrayVar(&opts.Headers, "header", nil, `extra HTTP header "Name: value" for --webhook (repeatable)`)
	fl.StringVar(&opts.Command, "command", "", `run "CMD ARGS" once per event, the payload on stdin`)
	fl.IntVar(&opts.MaxAttempts, "max-attempts", outbox.DefaultMaxAttempts, "attempts per event, over all runs, before it is parked as failed")
	fl.IntVar(&opts.Concurrency, "concurrency", 1, "events sent at once (1: one at a time, oldest first)")
	fl.DurationVar(&opts.Timeout, "timeout", outbox.DefaultTimeout, "time limit of one attempt")
	fl.DurationVar(&opts.Wait, "wait", outbox.DefaultWait, "wait for retries due within this long; later ones are left for the next run")
	fl.DurationVar(&opts.MaxBackoff, "max-backoff", outbox.DefaultMaxBackoff, "longest wait before retrying an event (caps backoff and Retry-After)")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "deliver the events of every tenant, not only --tenant's")
	return c
}

// check validates the flags and parses --header and --command.
func (o *OutboxDeliverOptions) check() error {
	const try = "invx outbox deliver --webhook https://erp.example/hooks/invx"
	switch {
	case o.Webhook == "" && o.Command == "":
		return &usageError{err: errors.New("outbox deliver: want --webhook URL or --command CMD"), try: try}
	case o.Webhook != "" && o.Command != "":
		return &usageError{err: errors.New("outbox deliver: --webhook and --command exclude each other"), try: try}
	case len(o.Headers) > 0 && o.Webhook == "":
		return &usageError{err: errors.New("--header needs --webhook"), try: try}
	case o.MaxAttempts < 1:
		return &usageError{err: fmt.Errorf("--max-attempts %d: want at least 1", o.MaxAttempts)}
	case o.Concurrency < 1 || o.Concurrency > 64:
		return &usageError{err: fmt.Errorf("--concurrency %d: want 1..64", o.Concurrency)}
	case o.Timeout <= 0 || o.MaxBackoff <= 0:
		return &usageError{err: errors.New("--timeout and --max-backoff must be positive")}
	case o.Wait < 0:
		return &usageError{err: fmt.Errorf("--wait %s: must not be negative", o.Wait)}
	}
	if o.Webhook != "" {
		u, err := url.Parse(o.Webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			shown := o.Webhook
			if err == nil {
				shown = u.Redacted()
			}
			return &usageError{err: fmt.Errorf("--webhook %q: want an http:// or https:// URL", shown), try: try}
		}
		h, err := parseHeaders(o.Headers)
		if err != nil {
			return &usageError{err: err, try: `invx outbox deliver --webhook URL --header "Authorization: Bearer $TOKEN"`}
		}
		o.header = h
	}
	if o.Command != "" {
		argv, err := command.SplitCommand(o.Command)
		if err != nil || len(argv) == 0 {
			return &usageError{err: fmt.Errorf("--command: %v", err), try: `invx outbox deliver --command "./post-event.sh"`}
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return &usageError{err: fmt.Errorf("--command: %s: not found or not executable", argv[0]),
				try: `invx outbox deliver --command "./post-event.sh"`}
		}
		o.argv = argv
	}
	return nil
}

// reservedHeaders are set by invx on every request.
var reservedHeaders = map[string]bool{"Idempotency-Key": true, "Content-Type": true, "Content-Length": true,
	"Host": true, "Transfer-Encoding": true, "Connection": true}

// parseHeaders reads --header "Name: value" pairs. Errors name the header,
// never its value (it is often a secret).
func parseHeaders(pairs []string) (http.Header, error) {
	h := http.Header{}
	for _, kv := range pairs {
		name, value, ok := strings.Cut(kv, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !validHeaderName(name) {
			return nil, fmt.Errorf("--header %q: want Name: value", displayPath(name))
		}
		if reservedHeaders[http.CanonicalHeaderKey(name)] {
			return nil, fmt.Errorf("--header %s: set by invx itself", http.CanonicalHeaderKey(name))
		}
		for _, r := range value {
			if (r < 0x20 && r != '\t') || r == 0x7f {
				return nil, fmt.Errorf("--header %s: the value holds a control character", name)
			}
		}
		h.Add(name, value)
	}
	return h, nil
}

// validHeaderName reports whether s is an RFC 9110 field name (a token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

func outboxDeliverRun(ctx context.Context, f *Factory, opts *OutboxDeliverOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	var sink outbox.Sink
	if opts.Webhook != "" {
		sink = &outbox.Webhook{URL: opts.Webhook, Header: opts.header, UserAgent: "invx/" + versionString(), NowFunc: f.Now}
	} else {
		sink = &outbox.Command{Argv: opts.argv}
	}
	// A receiver may echo a request header (Authorization) in its error
	// answer, which is stored with the event and printed.
	f.addURLSecret(opts.Webhook)
	for _, values := range opts.header {
		for _, v := range values {
			f.scrubber().Add(v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				f.scrubber().Add(strings.TrimSpace(cred)) // "Bearer TOKEN": the token alone too
			}
		}
	}
	sink = scrubSink(sink, f.scrubber())
	d := &outbox.Deliverer{
		Store: st, Sink: sink, Owner: extract.LocalOwner(newRunID()),
		MaxAttempts: opts.MaxAttempts, Concurrency: opts.Concurrency, Timeout: opts.Timeout,
		MaxBackoff: opts.MaxBackoff, Wait: opts.Wait,
		AliveFunc: extract.LocalOwnerAlive, NowFunc: f.Now, Logger: f.Logger(),
	}
	if opts.Wait == 0 {
		d.Wait = -1 // --wait 0s: never wait
	}
	if !opts.AllTenants {
		d.Tenant = f.Tenant
	}
	sum, err := d.Deliver(ctx)
	if sum != nil {
		renderDeliverSummary(f, sum)
	}
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		return interruptedError{}
	case err != nil:
		return err
	case sum.Failed > 0 || sum.Pending > 0:
		return &needsReviewError{n: sum.Failed + sum.Pending}
	}
	return nil
}

func renderDeliverSummary(f *Factory, s *outbox.Summary) {
	w := f.IO.ErrOut
	fmt.Fprintf(w, "outbox: delivered %d, retried %d, failed %d\n", s.Delivered, s.Retried, s.Failed)
	for _, p := range s.Parked {
		fmt.Fprintf(w, "  failed %s (%s) after %d attempt(s): %s\n", p.EventKey, p.Kind, p.Attempts, p.Error)
	}
	if s.LostLeases > 0 {
		fmt.Fprintf(w, "%d attempt(s) were not recorded: another deliverer had taken the event over\n", s.LostLeases)
	}
	if s.Pending > 0 {
		when := ""
		if !s.NextTryAt.IsZero() {
			if d := s.NextTryAt.Sub(f.Now()); d > 0 {
				when = ", next try in " + shortDuration(d)
			}
		}
		fmt.Fprintf(w, "%d event(s) still pending%s: run invx outbox deliver again\n", s.Pending, when)
	}
	if earlier := s.FailedTotal - s.Failed; earlier > 0 {
		fmt.Fprintf(w, "%d event(s) were parked as failed earlier: invx outbox list --pending; invx outbox retry sends them again\n", earlier)
	}
}

// OutboxRetryOptions are the arguments and flags of invx outbox retry.
type OutboxRetryOptions struct {
	EventKeys  []string
	AllTenants bool
}

func newCmdOutboxRetry(f *Factory, runF func(context.Context, *OutboxRetryOptions) error) *cobra.Command {
	opts := &OutboxRetryOptions{}
	c := &cobra.Command{
		Use:   "retry [EVENT_KEY...] [--all-tenants]",
		Short: "Make events parked as failed pending again, with a fresh attempt budget",
		Long: `Retry moves outbox events that invx outbox deliver parked as failed (the
receiver refused them, or --max-attempts ran out) back to pending, with a
fresh attempt budget: their attempts start again from 0 and they are due at
once. The last error stays in invx outbox list until the next attempt.
Retry sends nothing itself: run invx outbox deliver afterwards. The
receiver gets the event again with the same Idempotency-Key.

Name events by their full key (<job_key>:action:<action_id> for an action
item, <job_key>:invoice.committed for the commit), as invx outbox list
prints it when piped or with --json (on a terminal the job key is cut
short); without a key, every failed event of the tenant is retried.
--all-tenants looks at the events of every tenant. Pending and delivered
events are never touched: a delivered event is never sent again.

The number of events requeued goes to stderr. Exit status 1 when a named
key is not a failed event of the tenant (the others are still requeued).`,
		Example: `  invx outbox retry
  invx outbox retry "$JOB_KEY:action:a1" "$JOB_KEY:invoice.committed"
  invx outbox list --pending --json | jq -r '.[] | select(.state == "failed") | .event_key' | xargs invx outbox retry
  invx outbox retry --all-tenants && invx outbox deliver --all-tenants --webhook https://erp.example/hooks/invx`,
		RunE: func(c *cobra.Command, args []string) error {
			for _, k := range args {
				if job, action, ok := strings.Cut(k, ":"); !ok || job == "" || action == "" {
					return &usageError{err: fmt.Errorf("outbox retry %q: want an event key <job_key>:<action_id>", displayPath(k)),
						try: "invx outbox list --pending --json"}
				}
				if !slices.Contains(opts.EventKeys, k) {
					opts.EventKeys = append(opts.EventKeys, k)
				}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return outboxRetryRun(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.AllTenants, "all-tenants", false, "retry the failed events of every tenant, not only --tenant's")
	return c
}

func outboxRetryRun(ctx context.Context, f *Factory, opts *OutboxRetryOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	p := &store.RequeueOutboxParams{EventKeys: opts.EventKeys, Now: f.Now()}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	n, err := st.RequeueOutbox(ctx, p)
	if err != nil {
		return err
	}
	errOut := f.IO.ErrOut
	switch {
	case n > 0:
		fmt.Fprintf(errOut, "requeued %d outbox event(s): run invx outbox deliver to send them\n", n)
	case len(opts.EventKeys) == 0:
		fmt.Fprintln(errOut, "no failed outbox events")
	}
	if missed := len(opts.EventKeys) - n; len(opts.EventKeys) > 0 && missed > 0 {
		whose := "of tenant " + f.Tenant
		if opts.AllTenants {
			whose = "of any tenant"
		}
		return fmt.Errorf("outbox retry: %d of %d event key(s) name no failed event %s (pending, delivered or unknown): "+
			"invx outbox list --pending", missed, len(opts.EventKeys), whose)
	}
	return nil
}
