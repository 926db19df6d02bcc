package extract

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/invx/invx/internal/backoff"
)

// ClassForStatus is the retry class of an HTTP status from a model API
// (DESIGN.md section 3). Adapters refine it with the body's error code:
// quota exhaustion on a 429 is permanent, not rate limited.
func ClassForStatus(status int) Class {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ClassAuth
	case status == http.StatusTooManyRequests:
		return ClassRateLimited
	case status == http.StatusPaymentRequired:
		// Out of credit: no retry will help.
		return ClassPermanent
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status >= 500:
		// 5xx includes 529 overloaded.
		return ClassTransient
	default:
		return ClassPermanent
	}
}

// RetryAfter reads how long a server asked us to wait (retry-after-ms,
// then Retry-After as seconds or an HTTP date), for the adapters: it is
// backoff.RetryAfter, the one parser the outbox uses too.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	return backoff.RetryAfter(h, now)
}

// Categories of transient transport failures that mean the provider could
// not be reached at all: no server answered (CategoryUnreachable: refused,
// no route, DNS) or the connection broke before any answer
// (CategoryConnection). A run stops after --max-unreachable of them in a
// row (see Unreachable).
const (
	CategoryUnreachable = "unreachable"
	CategoryConnection  = "connection"
)

// TransportError classifies an error that happened before a complete HTTP
// answer arrived: the run being interrupted, a per-call timeout, a server
// that cannot be reached, a connection reset or a truncated body. All but
// the first are transient.
func TransportError(ctx context.Context, err error) *ProviderError {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return &ProviderError{Class: ClassInterrupted, Msg: "interrupted", Err: err}
	case errors.As(err, &dns) && !dns.IsTimeout:
		return &ProviderError{Class: ClassTransient, Category: CategoryUnreachable, Msg: "host name not found", Err: err}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.As(err, &op) && op.Op == "dial" && !op.Timeout():
		return &ProviderError{Class: ClassTransient, Category: CategoryUnreachable, Msg: "cannot connect to the server", Err: err}
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return &ProviderError{Class: ClassTransient, Category: "timeout", Msg: "request timed out", Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &ProviderError{Class: ClassTransient, Category: "truncated_body", Msg: "connection closed before the answer was complete", Err: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &ProviderError{Class: ClassTransient, Category: CategoryConnection, Msg: "connection failed", Err: err}
	default:
		return &ProviderError{Class: ClassTransient, Category: "transport", Msg: "transport error", Err: err}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Unreachable reports a provider failure that reached no server: a
// transient ProviderError of CategoryUnreachable, or of CategoryConnection
// without any HTTP status (a reset before an answer).
func Unreachable(err error) bool {
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Class != ClassTransient {
		return false
	}
	return pe.Category == CategoryUnreachable || pe.Category == CategoryConnection && pe.Status == 0
}
