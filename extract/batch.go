package extract

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"time"
)

// BatchRequest is one request of a batch submission: the same Request the
// synchronous path sends (prompt, schema, structured output settings,
// repair feedback), named by its custom id.
type BatchRequest struct {
	CustomID string
	Req      *Request
}

// BatchInfo is a provider's view of one batch.
type BatchInfo struct {
	RemoteID    string
	InputFileID string // OpenAI: the uploaded JSONL
	// Status is the provider's own word (validating, in_progress,
	// finalizing, completed, failed, expired, cancelling, cancelled;
	// in_progress, canceling, ended).
	Status string
	// Ended reports that no request will change any more: results (if
	// any) can be read.
	Ended bool
	// Failed reports that the provider refused or failed the whole batch
	// (no results at all); Message says why, without document text.
	Failed  bool
	Message string
	// Request counts: Total, and those finished (Done, success or not) and
	// failed (errored, expired, cancelled) so far.
	Total, Done, FailedRequests int
	CreatedAt                   time.Time
}

// BatchLine is one request's outcome in a batch's results.
type BatchLine struct {
	CustomID string
	// Resp and Err are what Provider.Extract would have returned for the
	// same answer: the candidate output with model, tokens and request id,
	// and a classified *ProviderError for an error line or an unusable
	// answer (refusal, truncation: ClassRejected, re-askable).
	Resp *Response
	Err  error
	// Expired is set for a request the provider did not run (expired
	// before the completion window ended, cancelled): its job goes back to
	// the queue, no attempt budget spent.
	Expired bool
}

// BatchClient submits requests through a provider's batch API. Each call
// is one or a few HTTP requests; none blocks for the batch to finish.
type BatchClient interface {
	// Name is the provider's name ("openai", "anthropic").
	Name() string
	// Model is the model the requests name.
	Model() string
	// Limits are the provider's caps on one batch: requests and bytes of
	// the submission.
	Limits() (maxRequests int, maxBytes int64)
	// Size is how many bytes req adds to a submission (for splitting).
	Size(req BatchRequest) (int64, error)
	// Submit creates one batch of reqs, tagged with tag (the store's
	// local batch id, carried as metadata where the API has it).
	Submit(ctx context.Context, tag string, reqs []BatchRequest) (BatchInfo, error)
	// Find looks for a batch created for tag at or after since with n
	// requests, in case a process died between creating it and recording
	// its id. ok is false when there is none.
	Find(ctx context.Context, tag string, since time.Time, n int) (info BatchInfo, ok bool, err error)
	// Status reads a batch.
	Status(ctx context.Context, remoteID string) (BatchInfo, error)
	// Results calls fn for each result line of an ended batch, in the
	// provider's order; a line that cannot be read at all is reported as a
	// BatchLine with a ClassRejected error when its custom id is known.
	Results(ctx context.Context, remoteID string, fn func(BatchLine) error) error
	// Cancel asks the provider to cancel a batch.
	Cancel(ctx context.Context, remoteID string) (BatchInfo, error)
}

// BatchCustomID is a request's custom id: the job key's first 56 hex
// digits, a dash and the attempt number, which fits both APIs' alphabet
// ([A-Za-z0-9_-]) and Anthropic's 64-character cap. The store maps it back
// to the job; `invx show` takes the key prefix.
func BatchCustomID(jobKey string, attempt int) string {
	k := jobKey
	if len(k) > 56 {
		k = k[:56]
	}
	return k + "-" + strconv.Itoa(attempt)
}

// UnreadableAnswer is the failure of a batch result that cannot be read as
// an answer: rejected (re-askable), category decode, like prose from a
// synchronous call.
func UnreadableAnswer(msg string) *ProviderError {
	return &ProviderError{Class: ClassRejected, Category: "decode", Msg: msg}
}

// customIDField finds the custom id in a results line that is not JSON.
var customIDField = regexp.MustCompile(`"custom_id"\s*:\s*"([A-Za-z0-9_-]{1,64})"`)

// UnparsedBatchLine is the BatchLine of a results line that is not JSON:
// its request is re-asked when the line still names its custom id, and the
// error says the results cannot be read when it names none.
func UnparsedBatchLine(raw []byte) (BatchLine, error) {
	m := customIDField.FindSubmatch(raw)
	if m == nil {
		return BatchLine{}, errors.New("a line that is not JSON and names no custom_id")
	}
	return BatchLine{CustomID: string(m[1]), Err: UnreadableAnswer("the result line is not valid JSON")}, nil
}
