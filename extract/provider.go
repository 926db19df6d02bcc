package extract

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/invx/invx/schema"
)

// Provider turns a normalised document into candidate JSON. It never sees the
// store and never decides commits; its metadata goes to the attempt row, never
// into the result.
type Provider interface {
	// Name is the provider's short name ("rules", "openai", ...).
	Name() string
	// Extract returns the candidate answer. A failure must be a
	// *ProviderError (or wrap one) so the retry policy can classify it;
	// any other error is treated as transient.
	Extract(ctx context.Context, req *Request) (*Response, error)
}

// Request is one provider call.
type Request struct {
	Tenant  string
	JobKey  string
	Attempt int
	// Text is the normalised document: data, never instructions.
	Text   string
	Schema *schema.Version
	// Feedback, on a repair re-ask, is the validation error of the previous
	// answer, to be shown to the model.
	Feedback *schema.ValidationError
}

// Response is a candidate answer with its metadata.
type Response struct {
	Output       []byte
	Model        string
	InputTokens  int64
	OutputTokens int64
	RequestID    string
	HTTPStatus   int
}

// Class is how the retry policy treats a failure (DESIGN.md section 3).
type Class string

// Failure classes.
const (
	ClassTransient   Class = "transient"
	ClassRateLimited Class = "rate_limited"
	ClassRejected    Class = "rejected"
	ClassPermanent   Class = "permanent"
	ClassAuth        Class = "auth"
	// ClassInterrupted: the run was interrupted during the call; the job is
	// given back untouched.
	ClassInterrupted Class = "interrupted"
)

// ProviderError is a classified provider failure. Msg must never contain
// document text, model output or secrets.
type ProviderError struct {
	Class      Class
	Status     int
	RetryAfter time.Duration
	// Category refines a rejected answer (refusal, truncated, ...).
	Category string
	Msg      string
	Err      error
}

func (e *ProviderError) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Class, e.Status, msg)
	}
	return fmt.Sprintf("%s: %s", e.Class, msg)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Classify returns the class of err: the ProviderError's, interrupted for
// context cancellation, transient otherwise.
func Classify(err error) Class {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Class
	}
	if errors.Is(err, context.Canceled) {
		return ClassInterrupted
	}
	return ClassTransient
}
