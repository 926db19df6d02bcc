package extract

import (
	"cmp"

	"github.com/invx/invx/store"
)

// Summary is what a run did. It holds counts only, never document content, so
// it can be printed, logged and stored with the run.
type Summary struct {
	RunID         string `json:"run_id"`
	Tenant        string `json:"tenant"`
	Provider      string `json:"provider"`
	SchemaVersion string `json:"schema_version"`
	Status        string `json:"status"`

	// Discovery and enqueue. FilesSeen counts candidate files: those taken
	// and those skipped for a reason (not those outside --include).
	FilesSeen        int            `json:"files_seen"`
	Skipped          map[string]int `json:"skipped"`
	NewJobs          int            `json:"new_jobs"`
	Duplicates       int            `json:"duplicates_suppressed"`
	AlreadyCommitted int            `json:"already_committed"`
	Resumed          int            `json:"resumed"`
	StillNeedsReview int            `json:"still_needs_review"`
	HeldChanged      int            `json:"held_changed"`
	Dismissed        int            `json:"dismissed"`

	// SkippedForReview counts the skipped files that are invoices not
	// processed (NeedsReview reasons): each is listed by invx review.
	SkippedForReview int `json:"skipped_for_review"`
	// EmptyInputs counts the inputs (DIR arguments) holding no file that
	// matches --include: usually an export upstream that failed.
	EmptyInputs int `json:"empty_inputs,omitempty"`

	// Work done by this run (on any of the tenant's queued jobs).
	Attempts        int            `json:"attempts"`
	CommittedNow    int            `json:"committed"`
	RejectedNow     map[string]int `json:"rejected"`
	FailedNow       int            `json:"failed"`
	Retried         int            `json:"retried"`
	LeaseRecoveries int            `json:"lease_recoveries"`
	StaleLeases     int            `json:"stale_leases"`
	InputTokens     int64          `json:"input_tokens"`
	OutputTokens    int64          `json:"output_tokens"`
	// ReviewOpened counts the review reasons this run's commits opened, by
	// reason (incomplete, possible_duplicate, arithmetic).
	ReviewOpened map[string]int `json:"review_opened"`

	// Final state of the documents this run saw.
	Final FinalStates `json:"final"`

	// Batches are the local ids of the batches this run submitted
	// (--batch), follow-ups included.
	Batches []int64 `json:"batches,omitempty"`

	WallMS int64 `json:"wall_ms"`
	// TraceID is the run's trace, when tracing is on.
	TraceID string `json:"trace_id,omitempty"`
}

// FinalStates count the documents of a run by the state they ended in.
type FinalStates struct {
	Succeeded  int            `json:"succeeded"`
	Rejected   int            `json:"rejected"`
	RejectedBy map[string]int `json:"rejected_by_category"`
	Failed     int            `json:"failed"`
	Held       int            `json:"held"`
	Dismissed  int            `json:"dismissed"`
	Unfinished int            `json:"unfinished"`
	// Review counts the run's documents committed with a review reason
	// still open (succeeded, but not to be paid blindly), whichever run
	// committed them; ReviewOpen counts those reasons by reason. A
	// document may have more than one.
	Review     int            `json:"review"`
	ReviewOpen map[string]int `json:"review_open"`
}

// count adds one job in state st to the tally.
func (f *FinalStates) count(st store.JobState) {
	switch st.State {
	case store.StateSucceeded:
		f.Succeeded++
	case store.StateRejected:
		f.Rejected++
		f.RejectedBy[cmp.Or(st.Category, "unknown")]++
	case store.StateFailed:
		f.Failed++
	case store.StateHeld:
		f.Held++
	case store.StateDismissed:
		f.Dismissed++
	default:
		f.Unfinished++
	}
}

// NeedsReview is the number of documents a person has to look at: jobs
// rejected, failed or held, results with an open review reason, and files
// skipped for their content, size or type.
func (s *Summary) NeedsReview() int {
	return s.Final.Rejected + s.Final.Failed + s.Final.Held + s.Final.Review + s.SkippedForReview
}

// SkippedTotal is the number of files passed over (files not matching
// --include are not counted: they were never candidates).
func (s *Summary) SkippedTotal() int {
	n := 0
	for reason, c := range s.Skipped {
		if reason != SkipNotIncluded {
			n += c
		}
	}
	return n
}

func (s *Summary) init(r *Runner) {
	s.RunID, s.Tenant, s.Provider, s.SchemaVersion = r.RunID, r.Tenant, r.Provider.Name(), r.Schema.Name
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	if s.RejectedNow == nil {
		s.RejectedNow = map[string]int{}
	}
	if s.Final.RejectedBy == nil {
		s.Final.RejectedBy = map[string]int{}
	}
	if s.ReviewOpened == nil {
		s.ReviewOpened = map[string]int{}
	}
	if s.Final.ReviewOpen == nil {
		s.Final.ReviewOpen = map[string]int{}
	}
}

func (s *Summary) copyMaps(from *Summary) {
	s.Skipped = cloneMap(from.Skipped)
	s.RejectedNow = cloneMap(from.RejectedNow)
	s.Final.RejectedBy = cloneMap(from.Final.RejectedBy)
	s.ReviewOpened = cloneMap(from.ReviewOpened)
}

func cloneMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
