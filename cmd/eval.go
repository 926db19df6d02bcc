package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/invx/invx/eval"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/command"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
	"github.com/invx/invx/store/sqlite"
)

// EvalOptions are the flags of invx eval.
type EvalOptions struct {
	Suite string
	// Specs are the --provider values: NAME[,model=M][,base-url=U]
	// [,command=CMD][,replay-dir=D][,label=L].
	Specs []string
	// Defaults are the provider settings a spec does not set itself.
	Defaults    ProviderOptions
	Schema      string
	Concurrency int
	MaxAttempts int
	Repair      int
	Prices      []string

	JSON, JUnit, Markdown, HTML string

	MinAdmission  float64
	MinAccuracy   []string
	MaxWrong      []string
	Baseline      string
	MaxRegression float64

	Record string
	KeepDB string
	Quiet  bool

	// set records which flags were given, for defaults that depend on it.
	set map[string]bool
}

// evalTarget is one provider to evaluate.
type evalTarget struct {
	label string
	opts  ProviderOptions
}

func newCmdEval(f *Factory, runF func(context.Context, *EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{}
	c := &cobra.Command{
		Use:   "eval SUITE --provider SPEC [--provider SPEC ...]",
		Short: "Score providers on a suite of invoices with expectations, side by side, and gate CI",
		Long: `Eval runs every document of SUITE (a folder of NAME.txt + NAME.expect.json
pairs, subfolders being sub-suites; see fixtures/README.md) through the same
pipeline as invx run: normalisation, job keys, prompt, strict validation,
repair re-asks and fenced commits. Each provider works in a fresh SQLite
database of its own, in a temporary folder (or under --keep-db DIR): eval
never opens the database named by --db.

A provider SPEC is NAME[,model=M][,base-url=U][,command=CMD][,replay-dir=D]
[,label=L], so several models or servers can be compared in one run; plain
NAME works too. --model, --base-url, --command and --replay-dir set what a
spec leaves out. The label names the provider in reports (default NAME,
NAME:MODEL, replay:FOLDER or command:PROGRAM).

Per provider it reports the admission rate (documents whose answer passed
validation and was committed), per-field accuracy (supplier_name compared
after normalising case, punctuation and legal-form suffixes, the other fields
exactly; a document without a committed result counts as wrong), action-kind
precision and recall, repairs, attempts, tokens, estimated cost (--price),
p50/p95 attempt latency, and which fields of which documents differ.

The table goes to stdout. --json, --junit, --markdown and --html write the
report to files ("-" for stdout instead of the table). Timings sit under
"timing" keys in the JSON: the rest is the same for the same answers.

Gates: --min-admission, --min-accuracy FIELD=MIN,..., --max-wrong FIELD=MAX,...
(the share of confidently wrong values: a value that is not the expected one;
a null is not wrong) and --baseline FILE (an earlier --json) with
--max-regression. A failed gate is printed on stderr and
ends eval with exit status 3.

--record DIR records each provider's raw answers into DIR/LABEL, which
--provider replay,replay-dir=DIR/LABEL evaluates again without a network
(with the recorded tenant, repair and attempt settings).`,
		Example: `  invx eval fixtures/invoices --provider rules
  invx eval fixtures/invoices --provider rules --min-admission 1 --min-accuracy total_minor=0.98,invoice_number=0.95
  invx eval fixtures/receipts --provider rules --max-wrong total_minor=0.03,currency=0.03
  invx eval fixtures/invoices --provider openai,model=gpt-4o-mini --provider ollama,model=llama3.2,label=local \
      --price openai:gpt-4o-mini=0.15/0.60 --html eval.html --junit eval.xml --record recorded/
  invx eval fixtures/invoices --provider replay,replay-dir=fixtures/recorded/fake-llm --baseline base.json --max-regression 0.02`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{err: errors.New("eval: want exactly one SUITE folder"), try: "invx eval fixtures/invoices --provider rules"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Suite = args[0]
			opts.set = map[string]bool{}
			c.Flags().Visit(func(fl *pflag.Flag) { opts.set[fl.Name] = true })
			if opts.set["db"] {
				return &usageError{err: errors.New("eval does not use --db: each provider works in a fresh database of its own"),
					try: "invx eval SUITE --keep-db DIR, to keep those databases"}
			}
			if err := checkEvalOptions(opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return evalRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringArrayVar(&opts.Specs, "provider", []string{"rules"}, "provider SPEC: NAME[,model=M][,base-url=U][,command=CMD][,replay-dir=D][,label=L] (repeatable; providers: "+providerNames+")")
	fl.StringVar(&opts.Defaults.Model, "model", "", "model for specs that set none")
	fl.StringVar(&opts.Defaults.BaseURL, "base-url", "", "API base URL for specs that set none")
	fl.StringVar(&opts.Defaults.Command, "command", "", `command for --provider command specs that set none: "CMD ARGS"`)
	fl.StringVar(&opts.Defaults.ReplayDir, "replay-dir", "", "recording folder for --provider replay specs that set none")
	fl.DurationVar(&opts.Defaults.Timeout, "timeout", 0, "per-call timeout (0: the provider's default)")
	fl.Int64Var(&opts.Defaults.MaxTokens, "max-tokens", 0, "output token limit per call (0: the provider's default)")
	fl.StringVar(&opts.Defaults.Mode, "anthropic-mode", "json_schema", "anthropic: json_schema or tool")
	fl.StringVar(&opts.Schema, "schema", schema.Latest().Name, "schema version to evaluate: "+schemaChoices())
	fl.IntVar(&opts.Concurrency, "concurrency", defaultConcurrency, "documents processed at once, per provider")
	fl.IntVar(&opts.MaxAttempts, "max-attempts", defaultMaxAttempts, "attempts per document, repairs included (replay: the recorded setting)")
	fl.IntVar(&opts.Repair, "repair", -1, "repair re-asks after an invalid answer (-1: the provider's default; replay: the recorded setting)")
	fl.StringArrayVar(&opts.Prices, "price", nil, "PROVIDER:MODEL=IN/OUT prices per million input/output tokens, for the cost estimate (repeatable; * matches any)")
	fl.StringVar(&opts.JSON, "json", "", "write the report as JSON to FILE (- for stdout)")
	fl.StringVar(&opts.JUnit, "junit", "", "write JUnit XML to FILE: a testsuite per provider, a testcase per document")
	fl.StringVar(&opts.Markdown, "markdown", "", "write a Markdown report to FILE, for a pull-request comment")
	fl.StringVar(&opts.HTML, "html", "", "write a self-contained HTML page to FILE: table and accuracy chart")
	fl.Float64Var(&opts.MinAdmission, "min-admission", 0, "gate: least admission rate, 0..1")
	fl.StringArrayVar(&opts.MinAccuracy, "min-accuracy", nil, "gate: least accuracy per field, FIELD=MIN[,FIELD=MIN...] (repeatable)")
	fl.StringArrayVar(&opts.MaxWrong, "max-wrong", nil, "gate: largest share of confidently wrong values per field, FIELD=MAX[,FIELD=MAX...] (repeatable)")
	fl.StringVar(&opts.Baseline, "baseline", "", "gate: an earlier --json report no figure may fall below by more than --max-regression")
	fl.Float64Var(&opts.MaxRegression, "max-regression", 0.02, "gate: how far a figure may fall below --baseline, 0..1")
	fl.StringVar(&opts.Record, "record", "", "record each provider's raw answers into DIR/LABEL, for --provider replay")
	fl.StringVar(&opts.KeepDB, "keep-db", "", "keep each provider's database as DIR/LABEL.db (default: a temporary folder, removed)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	return c
}

func checkEvalOptions(o *EvalOptions) error {
	if o.Concurrency < 1 || o.Concurrency > 256 {
		return &usageError{err: fmt.Errorf("--concurrency %d: want 1..256", o.Concurrency)}
	}
	if o.MaxAttempts < 1 {
		return &usageError{err: fmt.Errorf("--max-attempts %d: want at least 1", o.MaxAttempts)}
	}
	if o.Defaults.Timeout < 0 || o.Defaults.MaxTokens < 0 {
		return &usageError{err: errors.New("--timeout and --max-tokens must not be negative")}
	}
	if err := knownSchema(o.Schema, "invx eval SUITE --schema invoice-v2 (invx schema --list names the versions)"); err != nil {
		return err
	}
	if o.MinAdmission < 0 || o.MinAdmission > 1 {
		return &usageError{err: fmt.Errorf("--min-admission %g: want a share between 0 and 1", o.MinAdmission)}
	}
	if o.MaxRegression < 0 || o.MaxRegression > 1 {
		return &usageError{err: fmt.Errorf("--max-regression %g: want a share between 0 and 1", o.MaxRegression)}
	}
	if o.set["max-regression"] && o.Baseline == "" {
		return &usageError{err: errors.New("--max-regression needs --baseline FILE"), try: "invx eval SUITE --baseline old.json --max-regression 0.02"}
	}
	stdout := 0
	for _, p := range []string{o.JSON, o.JUnit, o.Markdown, o.HTML} {
		if p == "-" {
			stdout++
		}
	}
	if stdout > 1 {
		return &usageError{err: errors.New("only one of --json, --junit, --markdown and --html may write to stdout (-)")}
	}
	if st, err := os.Stat(o.Suite); err != nil {
		return &usageError{err: fmt.Errorf("%s: %w", o.Suite, unwrapPath(err)), try: "invx eval fixtures/invoices --provider rules"}
	} else if !st.IsDir() {
		return &usageError{err: fmt.Errorf("%s: a suite is a folder of NAME.txt + NAME.expect.json", o.Suite),
			try: "invx eval fixtures/invoices --provider rules"}
	}
	return nil
}

// specKeys are the keys a provider SPEC may set after its name.
var specKeys = []string{"model", "base-url", "command", "replay-dir", "label"}

var specKeyRE = regexp.MustCompile(`^(model|base-url|command|replay-dir|label)=`)

// parseProviderSpec reads NAME[,key=value...]. A comma that does not start
// a known key belongs to the value before it, so a command may hold commas.
func parseProviderSpec(spec string, defaults ProviderOptions) (evalTarget, error) {
	parts := strings.Split(spec, ",")
	name := strings.TrimSpace(parts[0])
	if name == "" || strings.Contains(name, "=") {
		return evalTarget{}, &usageError{err: fmt.Errorf("--provider %q: want NAME[,model=M][,base-url=U][,command=CMD][,replay-dir=D][,label=L]", spec),
			try: "invx eval SUITE --provider openai,model=gpt-4o-mini"}
	}
	var kv []string
	for _, p := range parts[1:] {
		if specKeyRE.MatchString(p) || len(kv) == 0 {
			kv = append(kv, p)
		} else {
			kv[len(kv)-1] += "," + p
		}
	}
	o := defaults
	o.Name = name
	o.cmdName = "eval"
	label := ""
	seen := map[string]bool{}
	for _, p := range kv {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !specKeyRE.MatchString(p) {
			return evalTarget{}, &usageError{err: fmt.Errorf("--provider %q: %q is not one of %s=VALUE", spec, p, strings.Join(specKeys, ", "))}
		}
		if seen[k] {
			return evalTarget{}, &usageError{err: fmt.Errorf("--provider %q: %s given twice", spec, k)}
		}
		seen[k] = true
		switch k {
		case "model":
			o.Model = v
		case "base-url":
			o.BaseURL = v
		case "command":
			o.Command = v
		case "replay-dir":
			o.ReplayDir = v
		case "label":
			if strings.TrimSpace(v) == "" {
				return evalTarget{}, &usageError{err: fmt.Errorf("--provider %q: empty label", spec)}
			}
			label = v
		}
	}
	if label == "" {
		label = defaultLabel(&o)
	}
	return evalTarget{label: label, opts: o}, nil
}

// defaultLabel names a provider in reports: its name, with the model, the
// recording folder or the program that tells two of a kind apart.
func defaultLabel(o *ProviderOptions) string {
	switch {
	case o.Name == "replay" && o.ReplayDir != "":
		return "replay:" + filepath.Base(filepath.Clean(o.ReplayDir))
	case o.Name == "command" && o.Command != "":
		if argv, err := command.SplitCommand(o.Command); err == nil && len(argv) > 0 {
			return "command:" + filepath.Base(argv[0])
		}
	case o.Model != "" && o.Name != "rules":
		return o.Name + ":" + o.Model
	}
	return o.Name
}

var unsafeNameRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName turns a label into a file or folder name.
func fileName(label string) string {
	s := strings.Trim(unsafeNameRE.ReplaceAllString(label, "_"), "._")
	if s == "" {
		return "provider"
	}
	return s
}

func evalRun(ctx context.Context, f *Factory, opts *EvalOptions) error {
	targets, err := evalTargets(opts)
	if err != nil {
		return err
	}
	gates, err := evalGates(opts)
	if err != nil {
		return err
	}
	prices := make(eval.Prices, 0, len(opts.Prices))
	for _, s := range opts.Prices {
		p, err := eval.ParsePrice(s)
		if err != nil {
			return &usageError{err: fmt.Errorf("--price %q: %w", s, err), try: "invx eval SUITE --price openai:gpt-4.1-mini=0.40/1.60"}
		}
		prices = append(prices, p)
	}
	v, _ := schema.Lookup(opts.Schema)
	suite, err := eval.Load(ctx, opts.Suite)
	if err != nil {
		return err
	}

	dbDir := opts.KeepDB
	if dbDir == "" {
		tmp, err := os.MkdirTemp("", "invx-eval-")
		if err != nil {
			return fmt.Errorf("create a temporary folder: %w", err)
		}
		defer os.RemoveAll(tmp)
		dbDir = tmp
	} else if err := os.MkdirAll(dbDir, 0o755); err != nil {
		return fmt.Errorf("--keep-db %s: %w", dbDir, unwrapPath(err))
	}

	started := f.Now()
	report := &eval.Report{Suite: suite.Name, SchemaVersion: v.Name, Tenant: f.Tenant, Documents: len(suite.Docs),
		Fields: eval.FieldsFor(v.Name)}
	for _, t := range targets {
		pr, err := evalOne(ctx, f, opts, t, suite, v, dbDir, prices)
		if err != nil {
			return err
		}
		report.Providers = append(report.Providers, pr)
	}
	report.Timing = &eval.ReportTiming{StartedAt: started.UTC(), WallMS: float64(f.Now().Sub(started).Microseconds()) / 1000}
	report.Provenance = eval.NewProvenance(versionString(), suite, started)
	if !gates.Empty() {
		report.Gates = gates.Check(report)
	}
	if err := writeEvalOutputs(f, opts, report); err != nil {
		return err
	}
	if g := report.Gates; g != nil {
		for _, n := range g.Notes {
			fmt.Fprintln(f.IO.ErrOut, "invx: note: "+n)
		}
		for _, fail := range g.Failures {
			fmt.Fprintln(f.IO.ErrOut, "invx: gate failed: "+fail)
		}
		if !g.Passed {
			return &evalGateError{n: len(g.Failures)}
		}
	}
	return nil
}

// evalTargets parses the --provider specs and checks what they need.
func evalTargets(opts *EvalOptions) ([]evalTarget, error) {
	var targets []evalTarget
	labels := map[string]bool{}
	names := map[string]bool{}
	for _, spec := range opts.Specs {
		t, err := parseProviderSpec(spec, opts.Defaults)
		if err != nil {
			return nil, err
		}
		if labels[t.label] {
			return nil, &usageError{err: fmt.Errorf("--provider %q: a second provider labelled %q", spec, t.label),
				try: "add label=NAME to tell them apart: --provider " + spec + ",label=other"}
		}
		labels[t.label] = true
		if names[fileName(t.label)] {
			return nil, &usageError{err: fmt.Errorf("--provider %q: label %q names the same folder as another provider", spec, t.label)}
		}
		names[fileName(t.label)] = true
		if opts.KeepDB != "" {
			db := filepath.Join(opts.KeepDB, fileName(t.label)+".db")
			if _, err := os.Stat(db); err == nil {
				return nil, &usageError{err: fmt.Errorf("--keep-db: %s exists; an evaluation needs a fresh database", db),
					try: "remove it, or keep the databases elsewhere"}
			}
		}
		if opts.Record != "" {
			t.opts.Record = filepath.Join(opts.Record, fileName(t.label))
			if entries, err := os.ReadDir(t.opts.Record); err == nil && len(entries) > 0 {
				return nil, &usageError{err: fmt.Errorf("--record: %s is not empty; a recording must hold one run only", t.opts.Record),
					try: "remove it, or record elsewhere"}
			}
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// evalGates builds the gates from the flags, reading the baseline.
func evalGates(opts *EvalOptions) (*eval.Gates, error) {
	g := &eval.Gates{MinAccuracy: map[string]float64{}, MaxWrong: map[string]float64{}, MaxRegression: opts.MaxRegression}
	if opts.set["min-admission"] {
		v := opts.MinAdmission
		g.MinAdmission = &v
	}
	for _, s := range opts.MinAccuracy {
		if err := eval.ParseMinAccuracyFor(opts.Schema, s, g.MinAccuracy); err != nil {
			return nil, &usageError{err: fmt.Errorf("--min-accuracy %w", err), try: "invx eval SUITE --min-accuracy total_minor=0.98,invoice_number=0.95"}
		}
	}
	for _, s := range opts.MaxWrong {
		if err := eval.ParseMaxWrongFor(opts.Schema, s, g.MaxWrong); err != nil {
			return nil, &usageError{err: fmt.Errorf("--max-wrong %w", err), try: "invx eval SUITE --max-wrong total_minor=0.03,currency=0.03"}
		}
	}
	if opts.Baseline != "" {
		base, err := eval.ReadReport(opts.Baseline)
		if err != nil {
			return nil, &usageError{err: fmt.Errorf("--baseline %w", err), try: "invx eval SUITE --json base.json, then --baseline base.json"}
		}
		g.Baseline, g.BaselineName = base, opts.Baseline
	}
	return g, nil
}

// runnerOptions maps invx eval's flags for one provider to the runner's
// settings: what eval has no flag for is invx run's default.
func (o *EvalOptions) runnerOptions(prov extract.Provider, po *ProviderOptions, v *schema.Version, tenant string,
	repair, maxAttempts int) *runnerOptions {
	return &runnerOptions{Command: "run", Provider: prov, ProviderOpts: po, Schema: v, Tenant: tenant,
		Concurrency: o.Concurrency, MaxAttempts: maxAttempts, MaxRecoveries: extract.DefaultMaxRecoveries,
		Repair: repair, MaxBackoff: defaultMaxBackoff, Lease: defaultLease, OnChange: store.OnChangeHold,
		DBRetry: defaultDBRetry, MaxUnreachable: defaultMaxUnreachable}
}

// evalOne evaluates one provider in a fresh database.
func evalOne(ctx context.Context, f *Factory, opts *EvalOptions, t evalTarget, suite *eval.Suite, v *schema.Version,
	dbDir string, prices eval.Prices) (*eval.ProviderReport, error) {
	repair, maxAttempts := opts.Repair, opts.MaxAttempts
	if t.opts.Name == "replay" && t.opts.ReplayDir != "" {
		rec, err := eval.ReadRecording(t.opts.ReplayDir)
		if err != nil {
			return nil, &usageError{err: fmt.Errorf("--provider %s: %w", t.label, err)}
		}
		if rec != nil {
			if !opts.set["repair"] {
				repair = rec.Repair
			}
			if !opts.set["max-attempts"] {
				maxAttempts = rec.MaxAttempts
			}
			// A folder of another schema version is refused by providerFor.
			if rec.Tenant != f.Tenant && rec.SchemaVersion == v.Name {
				fmt.Fprintf(f.IO.ErrOut, "invx: warning: %s was recorded for tenant %s and schema %s, not %s and %s: job keys will not match\n",
					t.opts.ReplayDir, rec.Tenant, rec.SchemaVersion, f.Tenant, v.Name)
			}
		}
	}
	t.opts.Schema = v.Name
	prov, defRepair, err := f.providerFor(&t.opts)
	if err != nil {
		return nil, err
	}
	// Resolved here: a recording stores the budget that was used.
	repair = resolveRepair(repair, defRepair)

	st, err := sqlite.Open(ctx, filepath.Join(dbDir, fileName(t.label)+".db"))
	if err != nil {
		return nil, err
	}
	defer st.Close()

	if !opts.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "invx: evaluating %s on %d documents\n", t.label, len(suite.Docs))
	}
	ro := opts.runnerOptions(prov, &t.opts, v, f.Tenant, repair, maxAttempts)
	cfg := &eval.Config{Store: st, Provider: prov, Label: t.label, Schema: v, Tenant: f.Tenant,
		Runner: newRunner(f, st, ro, nil), Prices: prices, NowFunc: f.Now}
	var bar *progressbar.ProgressBar
	if f.IO.ErrTTY && !opts.Quiet {
		bar = newBar(f.IO.ErrOut, len(suite.Docs))
		cfg.ProgressFunc = func(e extract.Event) {
			if e.Kind == extract.EventJobDone {
				_ = bar.Add(1)
			}
		}
	}
	pr, err := eval.Run(ctx, suite, cfg)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(f.IO.ErrOut)
	}
	switch {
	case err != nil && (errors.Is(err, extract.ErrAuth) || errors.Is(err, extract.ErrQuota)):
		return nil, fmt.Errorf("%s: %w", t.label, providerStopError(err, t.opts.Name))
	case err != nil && ctx.Err() != nil:
		return nil, interruptedError{}
	case err != nil:
		return nil, fmt.Errorf("%s: %w", t.label, err)
	}
	if t.opts.Record != "" {
		rec := &eval.Recording{Suite: suite.Name, Label: t.label, Provider: t.opts.Name, Tenant: f.Tenant,
			SchemaVersion: v.Name, Repair: repair, MaxAttempts: maxAttempts}
		if err := eval.WriteRecording(t.opts.Record, rec); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// writeEvalOutputs writes the table on stdout and the report files.
func writeEvalOutputs(f *Factory, opts *EvalOptions, r *eval.Report) error {
	outputs := []struct {
		flag, path string
		write      func(io.Writer, *eval.Report) error
	}{
		{"--json", opts.JSON, func(w io.Writer, r *eval.Report) error { return r.WriteJSON(w) }},
		{"--junit", opts.JUnit, eval.WriteJUnit},
		{"--markdown", opts.Markdown, eval.WriteMarkdown},
		{"--html", opts.HTML, eval.WriteHTML},
	}
	toStdout := false
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := o.write(&buf, r); err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		if o.path == "-" {
			toStdout = true
			if _, err := f.IO.Out.Write(buf.Bytes()); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(o.path, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, unwrapPath(err))
		}
	}
	if toStdout {
		return nil
	}
	return eval.WriteText(f.IO.Out, r, f.IO.OutTTY)
}

// evalGateError ends an evaluation whose gates failed. Like documents that
// need review it means "finished, but a person must look": it unwraps to
// needsReviewError, so exitCode maps it to exit 3. The failed gates are
// printed before it is returned.
type evalGateError struct{ n int }

func (e *evalGateError) Error() string { return fmt.Sprintf("%d eval gate(s) failed", e.n) }
func (e *evalGateError) Unwrap() error { return &needsReviewError{n: e.n} }
