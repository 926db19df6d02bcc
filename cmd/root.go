// Package cmd is invx's command-line surface: the cobra command tree, flags,
// IO streams, wiring of concrete stores and providers, rendering and exit
// codes. Commands are thin: they check flags, call extract, store or schema,
// and render.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/term"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/internal/redact"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/postgres"
	"github.com/invx/invx/store/sqlite"
)

// IO are a command's streams. Nothing in cmd writes to os.Stdout directly,
// so tests pass buffers and choose whether they look like a terminal.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY say whether Out and ErrOut are terminals.
	OutTTY bool
	ErrTTY bool
}

// Factory hands commands their dependencies, built lazily from the global
// flags.
type Factory struct {
	IO IO
	// Env reads the environment (os.Getenv by default).
	Env func(string) string
	// Now is the clock.
	Now func() time.Time

	DB        string
	Tenant    string
	LogLevel  string
	LogFormat string
	// LogFile, if set, receives the logs instead of stderr (--log-file).
	LogFile string
	// TracerProvider makes the spans of a run (nil: the one the OTEL_*
	// environment configures, or none).
	TracerProvider trace.TracerProvider

	logger  *slog.Logger
	logFile *os.File
	// logSink is logFile as the logger sees it: it keeps the first failed
	// write, which slog itself drops.
	logSink *logSink
	// secrets scrubs every output; see scrubber.
	secrets *redact.Scrubber
	logMu   sync.Mutex // guards logger
}

// Logger returns the logger configured by --log-level and --log-format. It
// writes to stderr (stdout is for data), or to --log-file, with every known
// secret scrubbed.
func (f *Factory) Logger() *slog.Logger {
	// Commands built from one Factory may ask at once (the tests run
	// them in parallel): the first builds it, the others wait for it.
	f.logMu.Lock()
	defer f.logMu.Unlock()
	if f.logger != nil {
		return f.logger
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.LogLevel)); err != nil {
		lvl = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: lvl}
	// ErrOut already scrubs (MainWith); the file gets its own scrubber.
	var w io.Writer = f.IO.ErrOut
	if f.logSink != nil {
		w = f.scrubber().Writer(f.logSink)
	}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if f.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	f.logger = slog.New(h)
	return f.logger
}

// OpenStore opens the store named by --db: a postgres:// URL selects
// PostgreSQL, anything else is a SQLite file, created if missing.
func (f *Factory) OpenStore(ctx context.Context) (store.Store, error) {
	return f.openStore(ctx, false)
}

// OpenExistingStore is OpenStore for commands that only read: a mistyped
// --db must not leave an empty database behind.
func (f *Factory) OpenExistingStore(ctx context.Context) (store.Store, error) {
	return f.openStore(ctx, true)
}

func (f *Factory) openStore(ctx context.Context, mustExist bool) (store.Store, error) {
	dsn := f.DB
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			// pgx errors may carry the DSN: never print the password.
			return nil, fmt.Errorf("--db %s: %s", redactDSN(dsn), strings.ReplaceAll(err.Error(), dsn, redactDSN(dsn)))
		}
		return st, nil
	}
	if mustExist {
		if _, err := os.Stat(strings.TrimPrefix(dsn, "sqlite://")); err != nil {
			return nil, &usageError{err: fmt.Errorf("--db %s: no such database", dsn), try: "invx --db PATH show KEY, with the database invx run wrote"}
		}
	}
	if err := checkDBFolder(strings.TrimPrefix(dsn, "sqlite://")); err != nil {
		return nil, err
	}
	st, err := sqlite.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// redactDSN hides a password in a database URL.
func redactDSN(dsn string) string {
	if at := strings.LastIndex(dsn, "@"); at > 0 {
		if scheme := strings.Index(dsn, "://"); scheme > 0 && scheme < at {
			return dsn[:scheme+3] + "***" + dsn[at:]
		}
	}
	return dsn
}

// Main runs invx with args and returns the process exit code.
func Main(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	f := &Factory{
		IO:  IO{In: in, Out: out, ErrOut: errOut, OutTTY: isTerminal(out), ErrTTY: isTerminal(errOut)},
		Env: os.Getenv,
		Now: time.Now,
	}
	return MainWith(ctx, f, args)
}

// MainWith runs invx with a prepared factory (tests use it to fake a
// terminal or a clock).
func MainWith(ctx context.Context, f *Factory, args []string) int {
	if f.Env == nil {
		f.Env = os.Getenv
	}
	if f.Now == nil {
		f.Now = time.Now
	}
	// Everything printed goes through the scrubber, so no message, log line
	// or rendered row can show a configured secret.
	f.IO.Out = f.scrubber().Writer(f.IO.Out)
	f.IO.ErrOut = f.scrubber().Writer(f.IO.ErrOut)
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	ran, err := root.ExecuteContextC(ctx)
	err = cobraUsage(err)
	if f.logFile != nil {
		if cerr := f.logFile.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--log-file: %w", cerr)
		}
		f.logFile = nil
	}
	if err != nil && !errors.Is(err, errSilent) {
		var ne *needsReviewError
		if !errors.As(err, &ne) {
			fmt.Fprintln(f.IO.ErrOut, "invx: "+err.Error())
			var ue *usageError
			if errors.As(err, &ue) {
				fmt.Fprintln(f.IO.ErrOut, "Try: "+tryFor(ran, ue.try))
			}
		}
	}
	code := exitCode(err)
	if err == nil && ctx.Err() != nil {
		code = ExitInterrupted
	}
	if f.logSink != nil {
		if lerr := f.logSink.failure(); lerr != nil {
			// Reported once, after the command: the commits went on, but an
			// operator relying on the log must learn it has holes. Like a
			// failed --metrics-file, it turns success (or "needs review")
			// into a runtime error.
			fmt.Fprintf(f.IO.ErrOut, "invx: write log file %s: %v (log lines were lost)\n", f.logSink.path, lerr)
			if code == ExitOK || code == ExitNeedsReview {
				code = ExitError
			}
		}
		f.logSink = nil
	}
	return code
}

// logSink is the --log-file writer. A slog handler ignores the error of
// its write, so the sink keeps the first one for MainWith to report.
type logSink struct {
	w    io.Writer
	path string

	mu  sync.Mutex
	err error
}

func (s *logSink) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
	}
	return n, err
}

// failure is the first failed write's reason, without the path the caller
// names anyway.
func (s *logSink) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pe *os.PathError
	if errors.As(s.err, &pe) {
		return pe.Err
	}
	return s.err
}

func isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		return term.IsTerminal(int(f.Fd()))
	}
	return false
}

func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "invx",
		Short: "Turn supplier-invoice text into validated, exactly-once JSON records",
		Long: `invx walks a directory of already-extracted invoice text, normalises each
document, derives a deterministic job key, calls a provider (the offline
"rules" extractor by default), validates the answer strictly against a
versioned schema and commits it exactly once to an embedded SQLite file.

Reruns are idempotent: one committed result per (tenant, job key), however
often a file is seen, a worker crashes or a call is retried.`,
		Example: `  invx run fixtures/invoices
  invx show fixtures/invoices/de_gutschrift.txt
  invx schema invoice-summary-v1`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := extract.ValidateTenant(f.Tenant); err != nil {
				return &usageError{err: fmt.Errorf("--tenant: %w", err), try: "invx --tenant acme run DIR"}
			}
			switch f.LogFormat {
			case "text", "json":
			default:
				return &usageError{err: fmt.Errorf("--log-format %q: want text or json", f.LogFormat)}
			}
			var lvl slog.Level
			if err := lvl.UnmarshalText([]byte(f.LogLevel)); err != nil {
				return &usageError{err: fmt.Errorf("--log-level %q: want debug, info, warn or error", f.LogLevel)}
			}
			if f.LogFile != "" && f.logFile == nil {
				// Appended to, and readable by the owner only: logs carry
				// tenants, job keys and paths.
				lf, err := os.OpenFile(f.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
				if err != nil {
					return &usageError{err: fmt.Errorf("--log-file: %w", err)}
				}
				f.logFile = lf
				f.logSink = &logSink{w: lf, path: f.LogFile}
			}
			f.addURLSecret(f.DB)
			return nil
		},
	}
	// --version prints what invx version prints. Declared here (cobra would
	// add one with a -v shorthand and its own "invx version dev" wording).
	root.Version = versionString()
	root.SetVersionTemplate(versionLine("{{.Version}}"))
	root.Flags().Bool("version", false, "print the invx version (as invx version) and exit")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: err, try: c.CommandPath() + " --help"}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&f.DB, "db", envOr(f.Env, "INVX_DB", "invx.db"), "database: a SQLite file, or a postgres:// URL (env INVX_DB)")
	pf.StringVar(&f.Tenant, "tenant", envOr(f.Env, "INVX_TENANT", "default"), "tenant id (env INVX_TENANT)")
	pf.StringVar(&f.LogLevel, "log-level", "warn", "log level: debug, info, warn, error")
	pf.StringVar(&f.LogFormat, "log-format", "text", "log format on stderr: text or json")
	pf.StringVar(&f.LogFile, "log-file", "", "append the logs to this file (created 0600) instead of stderr")

	root.AddCommand(
		newCmdRun(f, nil),
		newCmdWork(f, nil),
		newCmdShow(f, nil),
		newCmdJobs(f, nil),
		newCmdReview(f, nil),
		newCmdRetry(f, nil),
		newCmdExport(f, nil),
		newCmdCompare(f, nil),
		newCmdPrune(f, nil),
		newCmdStats(f, nil),
		newCmdPolicy(f),
		newCmdOutbox(f),
		newCmdBatch(f),
		newCmdEval(f, nil),
		newCmdSchema(f, nil),
		newCmdVersion(f),
		newExitCodesTopic(),
		newEnvironmentTopic(),
	)
	registerCompletions(root, f)
	return root
}

func envOr(env func(string) string, key, def string) string {
	if v := env(key); v != "" {
		return v
	}
	return def
}
