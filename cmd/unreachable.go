package cmd

import (
	"cmp"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/pflag"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/ollama"
	"github.com/invx/invx/extract/openai"
)

// unreachableStopError is the one line shown when the provider could not be
// reached --max-unreachable times in a row: it names the provider and its
// base URL (without credentials or query), never a key or the provider's
// error text.
func unreachableStopError(f *Factory, o *ProviderOptions, max int, err error) error {
	at := ""
	if u := providerEndpoint(f, o); u != "" {
		at = " at " + u
	}
	msg := fmt.Sprintf("provider %s unreachable%s: %d calls in a row reached no server (--max-unreachable); "+
		"no document was marked failed, run again once it is up", o.Name, at, max)
	return &stopError{msg: msg, err: firstLine(err)}
}

// providerEndpoint is the base URL the provider calls, as the adapters
// resolve it, safe to print: user info, query and fragment removed. Empty
// for providers without one.
func providerEndpoint(f *Factory, o *ProviderOptions) string {
	raw := ""
	switch o.Name {
	case "openai":
		raw = cmp.Or(o.BaseURL, f.Env("OPENAI_BASE_URL"), openai.DefaultBaseURL)
	case "anthropic":
		raw = cmp.Or(o.BaseURL, "https://api.anthropic.com/")
	case "ollama":
		raw = cmp.Or(o.BaseURL, f.Env("OLLAMA_HOST"), ollama.DefaultHost)
	default:
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		// A bare host (ollama's "host:port"): nothing secret can be in it
		// unless it has user info, which url.Parse would have found.
		return extract.Truncate(displayPath(raw), 200)
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
	return u.String()
}

// addResilienceFlags adds the flags of invx run and invx work that decide
// how long a worker rides out a database or provider that is away.
func addResilienceFlags(fl *pflag.FlagSet, dbRetry *time.Duration, maxUnreachable *int) {
	fl.DurationVar(dbRetry, "db-retry", defaultDBRetry, "ride out a database that cannot be reached (restart, dropped connection) this long before giving up (0: give up at once)")
	fl.IntVar(maxUnreachable, "max-unreachable", defaultMaxUnreachable, "stop (exit 4) after this many provider calls in a row reached no server, giving the jobs back (0: never)")
}

func checkResilience(dbRetry time.Duration, maxUnreachable int) error {
	if dbRetry < 0 {
		return &usageError{err: fmt.Errorf("--db-retry %s: want 0 or more", dbRetry), try: "invx work --db-retry 1m"}
	}
	if maxUnreachable < 0 {
		return &usageError{err: fmt.Errorf("--max-unreachable %d: want 0 (never stop) or more", maxUnreachable),
			try: "invx run --max-unreachable 5 fixtures/invoices"}
	}
	return nil
}
