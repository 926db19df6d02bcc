package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// completionLimit caps the jobs one TAB offers: a shell shows no more than
// a screenful usefully, and the query stays a short index range.
const completionLimit = 50

// registerCompletions teaches the shell invx's flag values and, for the
// commands that take a job, the keys and paths in the database. It runs
// when the tree is built, so it only attaches functions; nothing is read
// until a TAB asks.
func registerCompletions(root *cobra.Command, f *Factory) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	providers := strings.Split(providerNames, ", ")
	// Values per flag; --format and --state differ by command.
	values := func(c *cobra.Command, flag string) cobra.CompletionFunc {
		switch flag {
		case "format":
			switch c.Name() {
			case "export":
				return fixed("csv", "jsonl")
			case "stats":
				return fixed("table", "json", "prom")
			}
		case "state":
			switch c.Name() {
			case "jobs":
				return fixed(jobStates...)
			case "retry":
				return fixed(store.StateFailed, store.StateRejected)
			}
		case "provider":
			return fixed(providers...)
		case "schema":
			return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return schema.Versions(), cobra.ShellCompDirectiveNoFileComp
			}
		case "on-change":
			return fixed(string(store.OnChangeHold), string(store.OnChangeProcess))
		}
		return nil
	}
	_ = root.RegisterFlagCompletionFunc("log-level", fixed("debug", "info", "warn", "error"))
	_ = root.RegisterFlagCompletionFunc("log-format", fixed("text", "json"))

	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, name := range []string{"format", "state", "provider", "schema", "on-change"} {
			if c.LocalNonPersistentFlags().Lookup(name) == nil {
				continue
			}
			if fn := values(c, name); fn != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		switch c.CommandPath() {
		case "invx show":
			c.ValidArgsFunction = completeJobs(f, false)
		case "invx retry":
			c.ValidArgsFunction = completeJobs(f, true, store.StateFailed, store.StateRejected)
		case "invx review accept":
			c.ValidArgsFunction = completeJobs(f, false, store.StateHeld)
		case "invx review dismiss":
			c.ValidArgsFunction = completeJobs(f, false, store.StateRejected, store.StateFailed, store.StateHeld)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeJobs completes a KEY|PATH argument from the database named by
// --db: the tenant's jobs (in one of states, when given) whose key or path
// starts with what was typed, in one capped index query. many allows more
// than one argument (retry). A database that does not exist completes
// nothing and is not created (OpenExistingStore).
func completeJobs(f *Factory, many bool, states ...string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if len(args) > 0 && !many {
			return nil, none
		}
		st, err := f.OpenExistingStore(c.Context())
		if err != nil {
			return nil, none
		}
		defer st.Close()
		jobs, err := st.FindJobs(c.Context(), &store.FindJobsParams{Tenant: f.Tenant, Prefix: toComplete, States: states,
			Limit: completionLimit})
		if err != nil {
			return nil, none
		}
		var out []cobra.Completion
		add := func(value, desc string) {
			if !slices.Contains(args, value) && !slices.ContainsFunc(out, func(s string) bool { return strings.HasPrefix(s, value+"\t") }) {
				out = append(out, cobra.CompletionWithDesc(value, desc))
			}
		}
		for _, j := range jobs {
			if strings.HasPrefix(j.JobKey, toComplete) {
				// The 12-digit key listings show, unless more was typed.
				key := shortKey(j.JobKey)
				if len(toComplete) > len(key) {
					key = j.JobKey
				}
				add(key, j.State+" "+safeCell(jobPath(j)))
			}
			if j.DisplayPath != "" && strings.HasPrefix(j.DisplayPath, toComplete) {
				add(j.DisplayPath, j.State+" "+shortKey(j.JobKey))
			}
		}
		return out, none
	}
}
