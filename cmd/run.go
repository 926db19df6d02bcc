package cmd

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/telemetry"
)

// RunOptions are the flags of invx run.
type RunOptions struct {
	Dirs         []string
	profile      profileOptions
	Include      string
	MaxBytes     int64
	Concurrency  int
	OnChange     string
	JSON         bool
	Quiet        bool
	Provider     ProviderOptions
	Schema       string
	MaxAttempts  int
	Repair       int
	MaxBackoff   time.Duration
	TokenBudget  int64
	Lease        time.Duration
	Shadow       bool
	SourceSystem string
	EnqueueOnly  bool
	// Rehash reads every file, turning the stat check off (--rehash).
	Rehash    bool
	Telemetry TelemetryOptions

	// MaxRecoveries bounds the lease takeovers of one job (crashed workers).
	MaxRecoveries int
	// DBRetry and MaxUnreachable: see extract.Runner.
	DBRetry        time.Duration
	MaxUnreachable int
	// Encoding is how file bytes are decoded (--encoding).
	Encoding string
	// AllowEmpty makes a DIR without any matching file a success.
	AllowEmpty bool
	// Require is --require: nil, the tenant's review policy applies.
	Require []string
	// Batch: --batch and its flags.
	Batch BatchFlags
}

func newCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	c := &cobra.Command{
		Use:   "run DIR...",
		Short: "Extract, validate and commit every invoice text under DIR",
		Long: `Run walks each DIR (or takes a single file), normalises every matching text
file, enqueues one job per distinct document and works the tenant's queue
until it is empty: lease, provider call, strict validation, fenced commit.

Text is decoded as --encoding says: auto (the default) takes valid UTF-8
as it is, UTF-16 with a byte-order mark, and anything else as Windows-1252.
--include matches the extension in any case (*.txt takes INVOICE.TXT);
without it, *.txt, *.xml and *.pdf are taken.

A .xml file must be a structured e-invoice (UBL 2.1 Invoice or CreditNote,
UN/CEFACT CII D16B as in ZUGFeRD 2 / Factur-X / XRechnung, ZUGFeRD 1.0):
--provider auto (the default) reads it exactly with the einvoice provider
and sends text to --text-provider. Any other XML is skipped with its
reason (not_einvoice). A .pdf is read in the binary (no external
program): an embedded e-invoice (factur-x.xml, zugferd-invoice.xml,
ZUGFeRD-invoice.xml, xrechnung.xml) is read exactly as a .xml, else its
text layer goes the way of a .txt; a PDF without a text layer is skipped
(no_text_layer: it needs OCR), an encrypted or broken one too
(unreadable_pdf). The digest of an e-invoice or a PDF is sha256 of the
file's bytes; see docs/inputs.md.

Files that are not regular, oversized, binary or cannot be decoded are
invoices that were not processed: they are reported on stderr with the
reason, never enqueued, listed by invx review until a later run takes them
or they are dismissed, and the run exits 3. Hidden files and files outside
--include are passed over quietly. A DIR holding no matching file at all
is a warning and exit 3 (an empty nightly folder usually means the export
failed) unless --allow-empty. A rerun makes no provider call for documents
already committed, and does not even read a file whose size, modification
time and inode are those recorded when it was last read (the stat check);
--rehash reads every file, for a file rewritten without changing them (the
same size within one tick of a coarse file system clock, a copy that keeps
the old times onto the same inode). A path whose text changed
after it was committed is held for review (--on-change=hold) unless
--on-change=process.

--batch sends the text documents through the provider's batch API
(openai, anthropic) at half the price, results within 24 hours: each batch
is recorded before it is sent, polled with backoff and collected through
the same validation and fenced commit; --detach submits, prints the batch
ids and exits 0 (invx batch collect, or a later run, collects). See
invx batch --help and docs/batch.md.

The summary goes to stderr, or to stdout as one JSON object with --json.`,
		Example: `  invx run fixtures/invoices
  invx run --batch --provider openai --model gpt-4.1-mini /data/invoices/2026-11
  invx --tenant acme run --concurrency 8 /data/invoices/2026-11
  invx run --json --quiet fixtures/invoices > summary.json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{err: errors.New("run: missing DIR"), try: "invx run fixtures/invoices"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dirs = args
			if opts.Concurrency < 1 || opts.Concurrency > 256 {
				return &usageError{err: fmt.Errorf("--concurrency %d: want 1..256", opts.Concurrency)}
			}
			if opts.MaxBytes < 1 {
				return &usageError{err: fmt.Errorf("--max-bytes %d: want a positive size", opts.MaxBytes)}
			}
			switch store.OnChange(opts.OnChange) {
			case store.OnChangeHold, store.OnChangeProcess:
			default:
				return &usageError{err: fmt.Errorf("--on-change %q: want hold or process", opts.OnChange)}
			}
			if opts.MaxAttempts < 1 {
				return &usageError{err: fmt.Errorf("--max-attempts %d: want at least 1", opts.MaxAttempts)}
			}
			if opts.MaxRecoveries < 1 {
				return &usageError{err: fmt.Errorf("--max-recoveries %d: want at least 1", opts.MaxRecoveries)}
			}
			if opts.MaxBackoff <= 0 || opts.TokenBudget < 0 || opts.Provider.Timeout < 0 {
				return &usageError{err: errors.New("--max-backoff must be positive; --token-budget and --timeout must not be negative")}
			}
			if opts.Lease < time.Second {
				return &usageError{err: fmt.Errorf("--lease %s: want at least 1s", opts.Lease)}
			}
			if err := checkResilience(opts.DBRetry, opts.MaxUnreachable); err != nil {
				return err
			}
			if err := knownSchema(opts.Schema, "invx run --schema invoice-v2 DIR (invx schema --list names the versions)"); err != nil {
				return err
			}
			if !extract.ValidEncoding(opts.Encoding) {
				return &usageError{err: fmt.Errorf("--encoding %q: want one of %s", opts.Encoding, strings.Join(extract.Encodings, ", ")),
					try: "invx run --encoding windows-1252 fixtures/invoices"}
			}
			req, err := requireFlag(c.Flags(), opts.Require, "invx run --require total_minor,invoice_number DIR")
			if err != nil {
				return err
			}
			opts.Require = req
			if err := opts.Batch.check(&opts.Provider, "invx run --batch --provider openai --model gpt-4o-mini DIR"); err != nil {
				return err
			}
			for _, d := range opts.Dirs {
				if _, err := os.Stat(d); err != nil {
					return &usageError{err: fmt.Errorf("%s: %w", d, unwrapPath(err)), try: "invx run fixtures/invoices"}
				}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return profiled(&opts.profile, func() error { return runRun(c.Context(), f, opts) })
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Include, "include", "", "glob of file names to take (default: *.txt, *.xml and *.pdf)")
	fl.Int64Var(&opts.MaxBytes, "max-bytes", 1<<20, "skip files larger than this many bytes")
	fl.IntVar(&opts.Concurrency, "concurrency", defaultConcurrency, "provider calls at once (as many jobs again are leased ahead)")
	fl.StringVar(&opts.OnChange, "on-change", "hold", "a committed path whose text changed: hold (for review) or process")
	fl.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object on stdout")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress bar and no per-file messages")
	addProviderFlags(fl, &opts.Provider)
	addTelemetryFlags(fl, &opts.Telemetry)
	fl.StringVar(&opts.Schema, "schema", schema.Latest().Name, "schema version of new jobs: "+schemaChoices())
	fl.IntVar(&opts.MaxAttempts, "max-attempts", defaultMaxAttempts, "attempts per job, repairs included")
	fl.IntVar(&opts.MaxRecoveries, "max-recoveries", extract.DefaultMaxRecoveries, "lease takeovers of one job (its worker crashed or stalled) before it fails; not counted in --max-attempts")
	fl.IntVar(&opts.Repair, "repair", -1, "re-asks with the validation error after an invalid answer (-1: the provider's default: 1 for LLMs, 0 for rules and replay)")
	fl.DurationVar(&opts.MaxBackoff, "max-backoff", defaultMaxBackoff, "longest wait before retrying a job (caps backoff and Retry-After)")
	fl.Int64Var(&opts.TokenBudget, "token-budget", 0, "stop retrying a job once its attempts used this many tokens (0: no budget)")
	fl.DurationVar(&opts.Lease, "lease", defaultLease, "lease duration; leases are renewed while a call runs")
	fl.BoolVar(&opts.Shadow, "shadow", false, "commit results without publishing outbox events (compare a schema version)")
	fl.BoolVar(&opts.EnqueueOnly, "enqueue-only", false, "only enqueue: leave the work to invx work processes")
	fl.BoolVar(&opts.Rehash, "rehash", false, "read every file, even those the stat check (size, mtime, inode) finds unchanged")
	fl.StringVar(&opts.SourceSystem, "source-system", "", "name of the document source (default: fs:<absolute DIR>)")
	fl.StringVar(&opts.Encoding, "encoding", extract.EncodingAuto, "text encoding of the files: auto, utf-8, windows-1252, iso-8859-1 or utf-16")
	fl.BoolVar(&opts.AllowEmpty, "allow-empty", false, "a DIR without any matching file is not an error (exit 0, not 3)")
	addResilienceFlags(fl, &opts.DBRetry, &opts.MaxUnreachable)
	addRequireFlag(fl, &opts.Require)
	addBatchFlags(fl, &opts.Batch)
	addProfileFlags(fl, &opts.profile)
	return c
}

// callTimeout bounds a whole provider call in the runner, a little beyond
// the adapter's own request timeout so the adapter reports it first.
func callTimeout(o *ProviderOptions) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout + 5*time.Second
	}
	return 0
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runnerOptions maps invx run's flags to the runner's settings.
func (o *RunOptions) runnerOptions(prov extract.Provider, defRepair int, tenant string) *runnerOptions {
	v, _ := schema.Lookup(o.Schema) // checked in RunE
	return &runnerOptions{Command: "run", Provider: prov, ProviderOpts: &o.Provider, Schema: v, Tenant: tenant,
		Concurrency: o.Concurrency, MaxAttempts: o.MaxAttempts, MaxRecoveries: o.MaxRecoveries,
		Repair: resolveRepair(o.Repair, defRepair), MaxBackoff: o.MaxBackoff, TokenBudget: o.TokenBudget,
		Lease: o.Lease, Shadow: o.Shadow, OnChange: store.OnChange(o.OnChange),
		DBRetry: o.DBRetry, MaxUnreachable: o.MaxUnreachable, Require: o.Require}
}

// runRun is enqueue (discovery of every DIR) followed by the same work
// loop as invx work.
func runRun(ctx context.Context, f *Factory, opts *RunOptions) error {
	opts.Provider.Schema = opts.Schema
	prov, defRepair, err := f.providerFor(&opts.Provider)
	if err != nil {
		return err
	}
	bs, err := f.newBatchSetup(opts.Batch, &opts.Provider)
	if err != nil {
		return err
	}
	st, err := f.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	ro := opts.runnerOptions(prov, defRepair, f.Tenant)
	ctx, d, err := startDelivery(ctx, f, st, ro, opts.Telemetry, telemetry.InitParams{Tenant: f.Tenant,
		SchemaVersion: ro.Schema.Name, Provider: extract.RouteOf(prov, extract.FormatText), Routes: routes(prov),
		Discovery: true, Work: !opts.EnqueueOnly})
	if err != nil {
		return err
	}
	defer d.abandon(ctx)
	d.batch = bs

	walkErr, workErr := enqueueAndWork(ctx, f, d, opts)

	stopErr := walkErr
	if stopErr == nil || errors.Is(stopErr, context.Canceled) {
		stopErr = workErr
	}
	status := extract.RunStatus(ctx, stopErr)
	if status == "completed" && opts.EnqueueOnly {
		status = "enqueued"
	}
	sum, ferr, terr := d.finish(ctx, status)
	if sum != nil {
		if opts.JSON {
			if err := json.NewEncoder(f.IO.Out).Encode(sum); err != nil {
				return fmt.Errorf("write summary: %w", err)
			}
		} else if !opts.Quiet || sum.NeedsReview() > 0 {
			renderSummary(f.IO.ErrOut, sum)
		}
		if opts.Batch.Detach && !opts.JSON {
			if err := printDetached(f, bs); err != nil {
				return err
			}
		}
	}
	if terr != nil {
		fmt.Fprintln(f.IO.ErrOut, "invx: "+terr.Error())
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return walkErr
	}
	if err := workStopError(ctx, f, ro, workErr); err != nil {
		return err
	}
	switch {
	case ferr != nil:
		return ferr
	case terr != nil:
		return errSilent // printed above, after the summary
	case sum.NeedsReview() > 0:
		return &needsReviewError{n: sum.NeedsReview()}
	case sum.EmptyInputs > 0 && !opts.AllowEmpty:
		return &needsReviewError{n: 0}
	}
	return nil
}

// enqueueAndWork enqueues the folders and works the queue. The two run at
// once (Runner.Feed): the first provider calls start with the first batch
// written, and a fast provider keeps the second core busy while the walk
// reads and hashes. With --batch the queue is worked after the walk, as a
// batch is cut from what is queued.
func enqueueAndWork(ctx context.Context, f *Factory, d *delivery, opts *RunOptions) (walkErr, workErr error) {
	bar := f.IO.ErrTTY && !opts.Quiet && !opts.JSON
	if opts.EnqueueOnly || d.batch != nil {
		walkErr = enqueueDirs(ctx, f, d.r, opts)
		if walkErr == nil && ctx.Err() == nil && !opts.EnqueueOnly {
			workErr = d.work(ctx, bar)
		}
		return walkErr, workErr
	}
	stopBar := d.startBar(ctx, bar)
	defer stopBar()
	done := d.r.Feed()
	worked := make(chan error, 1)
	go func() { worked <- d.r.Work(ctx) }()
	walkErr = enqueueDirs(ctx, f, d.r, opts)
	done(walkErr)
	return walkErr, <-worked
}

// enqueueDirs discovers every DIR and enqueues what it finds, in batches;
// skipped files are recorded and reported on stderr.
func enqueueDirs(ctx context.Context, f *Factory, r *extract.Runner, opts *RunOptions) error {
	for _, dir := range opts.Dirs {
		src, err := sourceSystem(opts.SourceSystem, dir)
		if err != nil {
			return err
		}
		r.SourceSystem = src
		matched, err := enqueueDir(ctx, f, r, opts, dir)
		if err != nil {
			return err
		}
		if matched == 0 {
			// Said even with --quiet: an empty nightly folder usually means
			// the export upstream failed, and cron mails stderr.
			r.EmptyInput()
			fmt.Fprintf(f.IO.ErrOut, "invx: warning: no file matching %s in %s\n", includeShown(opts.Include), displayPath(dir))
		}
	}
	return nil
}

// sourceSystem is --source-system, or fs:<absolute folder> of dir.
func sourceSystem(flag, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	return "fs:" + abs, nil
}

// enqueueDir walks one DIR. matched counts the files that matched
// --include, taken or not.
func enqueueDir(ctx context.Context, f *Factory, r *extract.Runner, opts *RunOptions, dir string) (matched int, err error) {
	log := f.Logger().With("tenant", r.Tenant, "run_id", r.RunID)
	// Asked once: a large no-op rerun is mostly this loop, and the quoted
	// path of a debug line that is not written costs a formatting each.
	debug := log.Enabled(ctx, slog.LevelDebug)
	var batch enqueueBatch
	flush := func() error {
		docs := batch.take()
		err := r.Enqueue(ctx, docs)
		clear(docs) // the texts go with the batch, not with its reused backing array
		return err
	}
	var skipErr error
	dopts := extract.DiscoverOptions{Include: opts.Include, MaxBytes: opts.MaxBytes, Encoding: opts.Encoding}
	if !opts.Rehash {
		dopts.Known = r.KnownFiles
	}
	err = extract.Discover(ctx, dir, dopts,
		func(d extract.Found) error {
			if skipErr != nil {
				return skipErr // the store failed recording a skip: stop the walk
			}
			matched++
			// Paths are quoted: no control character of a file name reaches a log line.
			if debug {
				log.Debug("discovered", "stage", "discovered", "path", fmt.Sprintf("%q", d.Display), "bytes", len(d.Text),
					"encoding", d.Encoding)
			}
			if batch.add(d) {
				return flush()
			}
			return nil
		},
		func(s extract.Skipped) {
			if err := r.Skip(ctx, s); err != nil && skipErr == nil {
				skipErr = err
			}
			lvl := slog.LevelInfo
			switch s.Reason {
			case extract.SkipNotIncluded:
				lvl = slog.LevelDebug
			case extract.SkipHidden, extract.SkipBadName:
			default:
				matched++
			}
			log.Log(ctx, lvl, "skipped", "stage", "skipped", "outcome", s.Reason, "path", fmt.Sprintf("%q", s.Display))
			if s.Reason == extract.SkipNotIncluded || opts.Quiet {
				return
			}
			fmt.Fprintf(f.IO.ErrOut, "invx: skipped %s: %s\n", displayPath(s.Display), cmp.Or(s.Detail, s.Reason))
		})
	if err == nil {
		err = skipErr
	}
	if err == nil {
		err = flush()
	}
	return matched, err
}

func newBar(w interface{ Write([]byte) (int, error) }, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("extracting"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("docs"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
}

func renderSummary(w interface{ Write([]byte) (int, error) }, s *extract.Summary) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("run %s  tenant %s  provider %s  schema %s  %s\n", s.RunID, s.Tenant, s.Provider, s.SchemaVersion, s.Status)
	p("  files seen         %d\n", s.FilesSeen)
	if n := s.SkippedTotal(); n > 0 {
		p("  skipped            %d (%s)\n", n, countsString(s.Skipped, extract.SkipNotIncluded))
	}
	if n := s.Skipped[extract.SkipNotIncluded]; n > 0 {
		p("  not included       %d\n", n)
	}
	if s.EmptyInputs > 0 {
		p("  empty inputs       %d (no file matching --include)\n", s.EmptyInputs)
	}
	p("  new jobs           %d\n", s.NewJobs)
	p("  duplicates         %d\n", s.Duplicates)
	p("  already committed  %d\n", s.AlreadyCommitted)
	if s.Resumed > 0 {
		p("  resumed            %d\n", s.Resumed)
	}
	p("  committed          %d\n", s.CommittedNow)
	rej := 0
	for _, n := range s.RejectedNow {
		rej += n
	}
	if rej > 0 {
		p("  rejected           %d (%s)\n", rej, countsString(s.RejectedNow, ""))
	} else {
		p("  rejected           0\n")
	}
	p("  failed             %d\n", s.FailedNow)
	p("  held               %d\n", s.Final.Held)
	if s.Final.Review > 0 {
		// Counts only: what a clerk decides on is in invx review.
		p("  to review          %d (%s)\n", s.Final.Review, countsString(s.Final.ReviewOpen, ""))
	}
	p("  attempts           %d\n", s.Attempts)
	if len(s.Batches) > 0 {
		p("  batches            %s (invx batch status ID)\n", joinIDs(s.Batches))
	}
	if s.LeaseRecoveries > 0 || s.StaleLeases > 0 {
		p("  lease recoveries   %d  stale commits %d\n", s.LeaseRecoveries, s.StaleLeases)
	}
	p("  wall time          %s\n", (time.Duration(s.WallMS) * time.Millisecond).String())
	if n := s.NeedsReview(); n > 0 {
		p("%d document(s) need review (%s): invx review\n", n, summaryReviewCounts(s))
	}
	switch {
	case s.Status == "enqueued" && s.Final.Unfinished > 0:
		p("%d document(s) queued for invx work\n", s.Final.Unfinished)
	case s.Final.Unfinished > 0:
		p("%d document(s) unfinished: run again to carry on\n", s.Final.Unfinished)
	}
	if s.TraceID != "" {
		p("trace %s\n", s.TraceID)
	}
}

// summaryReviewCounts says why a run's documents need review: the states,
// then the open review reasons of its committed results, when there are.
func summaryReviewCounts(s *extract.Summary) string {
	out := reviewCounts(s.Final.Rejected, s.Final.Failed, s.Final.Held, s.SkippedForReview)
	if reasons := countsString(s.Final.ReviewOpen, ""); reasons != "" {
		out += ", " + reasons
	}
	return out
}

func countsString(m map[string]int, except string) string {
	keys := make([]string, 0, len(m))
	for k, n := range m {
		if k != except && n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// displayPath quotes a path that holds control characters, so a file name
// can never forge or break a line of output.
func displayPath(p string) string {
	for _, r := range p {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Sprintf("%q", p)
		}
	}
	return p
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// keyVariable names the environment variable that holds a provider's key.
func keyVariable(provider string) string {
	switch provider {
	case "openai":
		return "OPENAI_API_KEY (and --base-url / OPENAI_BASE_URL)"
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	case "ollama":
		return "OLLAMA_HOST"
	}
	return ""
}

// firstLine keeps the first of joined errors: when every worker hits the
// same authentication failure the user needs to read it once.
func firstLine(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if errs := j.Unwrap(); len(errs) > 0 {
			return errs[0]
		}
	}
	return err
}

// includeShown is the --include pattern as messages name it.
func includeShown(pattern string) string {
	if pattern == "" {
		return strings.Join(extract.DefaultIncludes, " or ")
	}
	return pattern
}
