package cmd

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/store"
)

// jobStates are the states invx jobs --state accepts.
var jobStates = []string{store.StateQueued, store.StateRunning, store.StateRetryWait, store.StateSucceeded,
	store.StateRejected, store.StateFailed, store.StateHeld, store.StateDismissed}

// JobsOptions are the flags of invx jobs.
type JobsOptions struct {
	States     []string
	Since      string
	Limit      int
	JSON       bool
	AllTenants bool
	NoHeaders  bool
}

func newCmdJobs(f *Factory, runF func(context.Context, *JobsOptions) error) *cobra.Command {
	opts := &JobsOptions{}
	c := &cobra.Command{
		Use:   "jobs",
		Short: "List the tenant's jobs: state, source path, attempts, last error, age",
		Long: `Jobs lists the tenant's jobs, most recently changed first: the job key (its
first 12 hex digits, which every command taking a KEY accepts), the state,
the supplier, invoice number and total of the committed result (empty
while there is none), the number of attempts, the last error
(class/category), the age (time since the job last changed) and the path
as it was named to invx run.

States: ` + strings.Join(jobStates, ", ") + `.

On a terminal the list is an aligned table; piped, it is a header line and
one tab-separated line per job (--no-headers drops the header, for cut and
awk); --json prints a JSON array with full keys and timestamps.`,
		Example: `  invx jobs
  invx jobs --state rejected --state failed
  invx jobs --since 7d --limit 20
  invx jobs --all-tenants --json | jq -r '.[] | select(.state == "held") | .job_key'`,
		Args: noArgs("jobs", "", "invx jobs --state failed"),
		RunE: func(c *cobra.Command, args []string) error {
			for _, s := range opts.States {
				if !slices.Contains(jobStates, s) {
					return &usageError{err: fmt.Errorf("--state %q: want one of %s", s, strings.Join(jobStates, ", ")),
						try: "invx jobs --state failed"}
				}
			}
			if opts.Since != "" {
				if _, err := parseAge(opts.Since); err != nil {
					return &usageError{err: fmt.Errorf("--since %w", err), try: "invx jobs --since 7d"}
				}
			}
			if opts.Limit < 0 {
				return &usageError{err: fmt.Errorf("--limit %d: want 0 (no limit) or more", opts.Limit)}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return jobsRun(c.Context(), f, opts)
		},
	}
	fl := c.Flags()
	fl.StringSliceVar(&opts.States, "state", nil, "only jobs in this state (repeatable)")
	fl.StringVar(&opts.Since, "since", "", "only jobs changed within this age, such as 7d, 36h or 15m")
	fl.IntVar(&opts.Limit, "limit", 100, "at most this many jobs, newest first (0: all)")
	fl.BoolVar(&opts.JSON, "json", false, "print the jobs as a JSON array")
	fl.BoolVar(&opts.AllTenants, "all-tenants", false, "list the jobs of every tenant, not only --tenant's")
	fl.BoolVar(&opts.NoHeaders, "no-headers", false, "print no header line")
	return c
}

// jobItem is one entry of invx jobs --json.
type jobItem struct {
	JobKey         string `json:"job_key"`
	Tenant         string `json:"tenant"`
	State          string `json:"state"`
	SourceSystem   string `json:"source_system"`
	SourcePath     string `json:"source_path"`
	SourceDigest   string `json:"source_digest"`
	SchemaVersion  string `json:"schema_version"`
	Attempts       int    `json:"attempt_count"`
	LastErrorClass string `json:"last_error_class,omitempty"`
	LastCategory   string `json:"last_category,omitempty"`
	LastError      string `json:"last_error,omitempty"`
	HeldReason     string `json:"held_reason,omitempty"`
	PrevJobKey     string `json:"prev_job_key,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	DisplayPath    string `json:"display_path,omitempty"`
	// The committed result's facts, absent while there is none.
	SupplierName  *string `json:"supplier_name,omitempty"`
	InvoiceNumber *string `json:"invoice_number,omitempty"`
	Currency      *string `json:"currency,omitempty"`
	TotalMinor    *int64  `json:"total_minor,omitempty"`
}

func jobsRun(ctx context.Context, f *Factory, opts *JobsOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return withTry(err, "invx --db PATH jobs, with the database invx run wrote")
	}
	defer st.Close()
	now := f.Now()
	p := &store.ListJobsParams{States: opts.States}
	if !opts.AllTenants {
		p.Tenant = f.Tenant
	}
	if opts.Since != "" {
		d, _ := parseAge(opts.Since)
		p.Since = now.Add(-d)
	}
	if opts.Limit > 0 {
		// One more than asked, to tell the user when the list was cut.
		p.Limit = opts.Limit + 1
	}
	jobs, err := st.ListJobs(ctx, p)
	if err != nil {
		return err
	}
	more := opts.Limit > 0 && len(jobs) > opts.Limit
	if more {
		jobs = jobs[:opts.Limit]
	}
	facts, err := jobFacts(ctx, st, jobs)
	if err != nil {
		return err
	}

	if opts.JSON {
		items := make([]jobItem, 0, len(jobs))
		for _, j := range jobs {
			items = append(items, jobItem{JobKey: j.JobKey, Tenant: j.Tenant, State: j.State, SourceSystem: j.SourceSystem,
				SourcePath: j.SourcePath, SourceDigest: j.SourceDigest, SchemaVersion: j.SchemaVersion, Attempts: j.Attempts,
				LastErrorClass: j.LastErrorClass, LastCategory: j.LastCategory, LastError: j.LastError,
				HeldReason: j.HeldReason, PrevJobKey: j.PrevJobKey, CreatedAt: ts(j.CreatedAt), UpdatedAt: ts(j.UpdatedAt),
				DisplayPath: j.DisplayPath})
			if fa := facts[j.ResultID]; fa != nil {
				it := &items[len(items)-1]
				it.SupplierName, it.InvoiceNumber, it.Currency, it.TotalMinor = fa.SupplierName, fa.InvoiceNumber, fa.Currency, fa.TotalMinor
			}
		}
		if err := printJSON(f.IO.Out, items); err != nil {
			return err
		}
	} else if len(jobs) > 0 {
		// The invoice columns come before the engineering ones, the path
		// last: it is long and its length varies.
		header := []string{"KEY", "STATE", "SUPPLIER", "INVOICE", "TOTAL", "ATTEMPTS", "LAST ERROR", "AGE", "PATH"}
		if opts.AllTenants {
			header = append([]string{"TENANT"}, header...)
		}
		tp := newTable(f.IO.Out, f.IO.OutTTY, header...)
		tp.headers = "always"
		if opts.NoHeaders {
			tp.headers = "never"
		}
		off := len(header) - 9
		tp.capColumn(off+2, 28)
		tp.capColumn(off+3, 20)
		tp.capColumn(off+6, 40)
		tp.capColumnLeft(off+8, 60)
		for _, j := range jobs {
			var supplier, number, total string
			if fa := facts[j.ResultID]; fa != nil {
				supplier, number, total = deref(fa.SupplierName), deref(fa.InvoiceNumber), deref(fa.Total)
				if total != "" && fa.Currency != nil {
					total += " " + *fa.Currency
				}
			}
			row := []string{shortKey(j.JobKey), j.State, supplier, number, total, fmt.Sprint(j.Attempts), lastError(j),
				humanAge(now, jobTime(j)), jobPath(j)}
			if opts.AllTenants {
				row = append([]string{j.Tenant}, row...)
			}
			tp.addRow(row...)
		}
		if err := tp.render(); err != nil {
			return err
		}
	}
	switch {
	case len(jobs) == 0 && !opts.JSON:
		fmt.Fprintln(f.IO.ErrOut, "no jobs")
	case more:
		fmt.Fprintf(f.IO.ErrOut, "showing the newest %d jobs; there are more (--limit 0 shows all)\n", opts.Limit)
	}
	return nil
}

// jobTime is when a job last changed.
func jobTime(j *store.Job) time.Time {
	if !j.UpdatedAt.IsZero() {
		return j.UpdatedAt
	}
	return j.CreatedAt
}

// lastError is the class/category column of a job's last error. A
// succeeded job shows none: an error it recovered from is history (invx
// show has it).
func lastError(j *store.Job) string {
	if j.State == store.StateSucceeded {
		return ""
	}
	switch {
	case j.LastErrorClass != "" && j.LastCategory != "":
		return j.LastErrorClass + "/" + j.LastCategory
	default:
		return cmp.Or(j.LastErrorClass, j.LastCategory)
	}
}

// jobFacts reads the committed results of the jobs that have one, in one
// query, and maps each result id to its invoice facts. A result whose
// schema version export cannot read shows no facts rather than failing the
// listing.
func jobFacts(ctx context.Context, st store.Store, jobs []*store.Job) (map[int64]*exportRecord, error) {
	var ids []int64
	for _, j := range jobs {
		if j.ResultID != 0 {
			ids = append(ids, j.ResultID)
		}
	}
	out := map[int64]*exportRecord{}
	if len(ids) == 0 {
		return out, nil
	}
	res, err := st.GetResults(ctx, &store.GetResultsParams{IDs: ids})
	if err != nil {
		return nil, err
	}
	for id, r := range res {
		var rec exportRecord
		if exportFacts(r.SchemaVersion, r.JSON, &rec) == nil {
			out[id] = &rec
		}
	}
	return out, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
