package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/anthropic"
	"github.com/invx/invx/extract/command"
	"github.com/invx/invx/extract/einvoice"
	"github.com/invx/invx/extract/ollama"
	"github.com/invx/invx/extract/openai"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/extract/rules"
)

// providerNames are the providers invx knows, for help and errors.
const providerNames = "auto, einvoice, rules, openai, anthropic, ollama, command, replay"

// ProviderOptions are the flags that choose and configure a provider.
type ProviderOptions struct {
	Name string
	// TextProvider is the provider --provider auto sends text documents
	// to (structured e-invoices go to einvoice).
	TextProvider string
	Model        string
	BaseURL      string
	Command      string
	ReplayDir    string
	Record       string
	Timeout      time.Duration
	MaxTokens    int64
	Mode         string
	// Schema, when set, is the schema version the jobs are worked under:
	// a replay folder recorded under another version is refused before the
	// run starts rather than failing every job.
	Schema string

	// cmdName is the command the flags belong to (run, work, retry, eval),
	// so a usage error's Try line shows that command, not another.
	cmdName string
}

func addProviderFlags(fl *pflag.FlagSet, o *ProviderOptions) {
	// cobra names a command's flag set after the command.
	o.cmdName = fl.Name()
	fl.StringVar(&o.Name, "provider", extract.AutoName, "provider: "+providerNames+" (auto: e-invoices to einvoice, text to --text-provider)")
	fl.StringVar(&o.TextProvider, "text-provider", "rules", "with --provider auto, the provider for text documents")
	fl.StringVar(&o.Model, "model", "", "model name (openai, anthropic, ollama)")
	fl.StringVar(&o.BaseURL, "base-url", "", "API base URL (openai: any OpenAI-compatible server, env OPENAI_BASE_URL; anthropic; ollama: env OLLAMA_HOST)")
	fl.StringVar(&o.Command, "command", "", `command for --provider command: "CMD ARGS", document on stdin, JSON on stdout`)
	fl.StringVar(&o.ReplayDir, "replay-dir", "", "recording folder for --provider replay")
	fl.StringVar(&o.Record, "record", "", "record every raw provider answer into this folder (for --provider replay)")
	fl.DurationVar(&o.Timeout, "timeout", 0, "per-call timeout (0: the provider's default)")
	fl.Int64Var(&o.MaxTokens, "max-tokens", 0, "output token limit per call (0: the provider's default)")
	fl.StringVar(&o.Mode, "anthropic-mode", "json_schema", "anthropic: json_schema (native structured output) or tool (a forced tool)")
}

// providerFor builds the provider the options name, and the number of
// repair re-asks it gets by default. Only cmd imports concrete adapters, and
// it chooses them here, by name.
func (f *Factory) providerFor(o *ProviderOptions) (extract.Provider, int, error) {
	p, repair, err := f.baseProvider(o)
	if err != nil {
		return nil, 0, err
	}
	// A model may echo its API key (or a URL's password) back in an answer:
	// scrubbed here, before the runner, the store and the recorder see it.
	for _, u := range []string{o.BaseURL, f.Env("OPENAI_BASE_URL"), f.Env("OLLAMA_HOST")} {
		f.addURLSecret(u)
	}
	p = &scrubProvider{inner: p, secrets: f.scrubber()}
	if o.Record != "" {
		rec, err := replay.NewRecorder(p, o.Record)
		if err != nil {
			return nil, 0, &usageError{err: fmt.Errorf("--record %s: %w", o.Record, err)}
		}
		p = rec
	}
	return p, repair, nil
}

func (f *Factory) baseProvider(o *ProviderOptions) (extract.Provider, int, error) {
	switch o.Name {
	case extract.AutoName:
		if o.TextProvider == extract.AutoName {
			return nil, 0, &usageError{err: errors.New("--text-provider auto: name the provider for text documents"), try: o.try("auto", "")}
		}
		to := *o
		to.Name = cmp.Or(o.TextProvider, "rules")
		text, repair, err := f.baseProvider(&to)
		if err != nil {
			return nil, 0, err
		}
		return &extract.Auto{EInvoice: einvoice.New(), Text: text}, repair, nil
	case einvoice.Name:
		return einvoice.New(), 0, nil
	}
	switch o.Name {
	case "openai", "anthropic", "ollama":
		// A model is part of the command line, not of the environment: a
		// missing one is a usage error (exit 2), caught before the adapter
		// would report it as configuration (exit 4).
		if strings.TrimSpace(o.Model) == "" {
			return nil, 0, &usageError{err: fmt.Errorf("--provider %s needs --model", o.Name), try: o.try(o.Name, exampleModels[o.Name])}
		}
	}
	switch o.Name {
	case "rules":
		return rules.New(), 0, nil
	case "openai":
		base := cmp.Or(o.BaseURL, f.Env("OPENAI_BASE_URL"))
		p, err := openai.New(openai.Config{BaseURL: base, APIKey: f.Env("OPENAI_API_KEY"), Model: o.Model,
			Timeout: o.Timeout, MaxTokens: o.MaxTokens})
		return p, 1, providerConfigErr(err)
	case "anthropic":
		p, err := anthropic.New(anthropic.Config{BaseURL: o.BaseURL, APIKey: f.Env("ANTHROPIC_API_KEY"), Model: o.Model,
			Timeout: o.Timeout, MaxTokens: o.MaxTokens, Mode: o.Mode})
		return p, 1, providerConfigErr(err)
	case "ollama":
		p, err := ollama.New(ollama.Config{Host: cmp.Or(o.BaseURL, f.Env("OLLAMA_HOST")), Model: o.Model, Timeout: o.Timeout})
		return p, 1, providerConfigErr(err)
	case "command":
		if o.Command == "" {
			return nil, 0, &usageError{err: errors.New("--provider command needs --command \"CMD ARGS\""),
				try: `invx run --provider command --command "./extract.sh" DIR`}
		}
		argv, err := command.SplitCommand(o.Command)
		if err != nil || len(argv) == 0 {
			return nil, 0, &usageError{err: fmt.Errorf("--command: %v", err)}
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return nil, 0, &configError{msg: fmt.Sprintf("--command: %s: not found or not executable", argv[0])}
		}
		p, err := command.New(command.Config{Argv: argv, Timeout: o.Timeout})
		return p, 1, providerConfigErr(err)
	case "replay":
		if o.ReplayDir == "" {
			return nil, 0, &usageError{err: errors.New("--provider replay needs --replay-dir DIR"),
				try: "invx run --provider replay --replay-dir fixtures/recorded/NAME DIR"}
		}
		if _, err := os.Stat(o.ReplayDir); err != nil {
			return nil, 0, &usageError{err: fmt.Errorf("--replay-dir %s: %w", o.ReplayDir, unwrapPath(err))}
		}
		if o.Schema != "" {
			recorded, err := replay.RecordedSchema(o.ReplayDir)
			if err == nil && recorded != "" && recorded != o.Schema {
				return nil, 0, &usageError{err: fmt.Errorf("--replay-dir %s: recorded under schema %s, not %s", o.ReplayDir, recorded, o.Schema),
					try: replaySchemaTry(o.cmdName, recorded, o.ReplayDir)}
			}
			if err == nil {
				// Read once: the provider does not scan the folder again.
				p, err := replay.NewRecorded(o.ReplayDir, recorded)
				return p, 0, providerConfigErr(err)
			}
		}
		p, err := replay.New(o.ReplayDir)
		return p, 0, providerConfigErr(err)
	default:
		return nil, 0, &usageError{err: fmt.Errorf("--provider %q: unknown provider (available: %s)", o.Name, providerNames),
			try: o.try("rules", "")}
	}
}

// exampleModels are the models Try lines suggest.
var exampleModels = map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5", "ollama": "llama3.2"}

// try is a Try line for the options' own command with provider name and,
// when not empty, model.
func (o *ProviderOptions) try(name, model string) string {
	if o.cmdName == "eval" {
		spec := name
		if model != "" {
			spec += ",model=" + model
		}
		return "invx eval fixtures/invoices --provider " + spec
	}
	line := "invx " + cmp.Or(o.cmdName, "run") + " --provider " + name
	if model != "" {
		line += " --model " + model
	}
	switch o.cmdName {
	case "", "run":
		line += " DIR"
	case "retry":
		line += " KEY"
	}
	return line
}

// providerConfigErr turns a constructor's failure (a missing API key, a
// missing model) into a configuration error: exit 4, one line naming what to
// set.
func providerConfigErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *extract.ProviderError
	if errors.As(err, &pe) && pe.Msg != "" {
		return &configError{msg: pe.Msg}
	}
	return &configError{msg: err.Error()}
}

// replaySchemaTry is the Try line for a replay folder recorded under another
// schema version: the same command with that version. eval names the folder
// inside its provider SPEC.
func replaySchemaTry(cmdName, version, dir string) string {
	if cmdName == "eval" {
		return fmt.Sprintf("invx eval SUITE --schema %s --provider replay,replay-dir=%s", version, dir)
	}
	return fmt.Sprintf("invx %s --schema %s --provider replay --replay-dir %s DIR", cmdName, version, dir)
}

// routes are the provider labels a run's attempts can carry besides the
// text route: under --provider auto, the e-invoice provider.
func routes(p extract.Provider) []string {
	if r := extract.RouteOf(p, "ubl-invoice"); r != extract.RouteOf(p, extract.FormatText) {
		return []string{r}
	}
	return nil
}
