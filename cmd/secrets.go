package cmd

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/internal/redact"
	"github.com/invx/invx/outbox"
	"github.com/invx/invx/store"
)

// secretVariables are the environment variables whose values are
// credentials invx or a library it configures sends somewhere.
var secretVariables = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// otelHeaderVariables carry "name=value,..." headers the OTLP exporter
// sends, often an API key for a tracing backend.
var otelHeaderVariables = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

// scrubber returns the scrubber every output of the command goes through:
// stdout, stderr, the log, provider answers and errors on their way to the
// store and the recorder, outbox errors. It starts with the secrets in the
// environment; flags that carry one (--header, a password in a URL) add
// theirs once parsed.
func (f *Factory) scrubber() *redact.Scrubber {
	if f.secrets != nil {
		return f.secrets
	}
	f.secrets = &redact.Scrubber{}
	for _, v := range secretVariables {
		f.secrets.Add(f.Env(v))
	}
	for _, v := range otelHeaderVariables {
		for _, pair := range strings.Split(f.Env(v), ",") {
			_, value, ok := strings.Cut(pair, "=")
			if !ok {
				continue
			}
			value = strings.TrimSpace(value)
			f.secrets.Add(value)
			if un, err := url.QueryUnescape(value); err == nil {
				f.secrets.Add(un)
			}
		}
	}
	return f.secrets
}

// addURLSecret registers the password of a URL such as a --base-url or a
// postgres:// DSN, if it has one.
func (f *Factory) addURLSecret(raw string) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return
	}
	if pw, ok := u.User.Password(); ok {
		f.scrubber().Add(pw, url.QueryEscape(pw), url.PathEscape(pw))
	}
}

// scrubProvider scrubs a provider's answer and errors before the runner
// (and so the attempt row, the result and the logs) or a recorder sees
// them. It sits directly around the adapter.
type scrubProvider struct {
	inner   extract.Provider
	secrets *redact.Scrubber
}

var _ extract.Provider = (*scrubProvider)(nil)

func (p *scrubProvider) Name() string { return p.inner.Name() }

// Route keeps the inner provider's routing visible through the wrapper.
func (p *scrubProvider) Route(format string) string { return extract.RouteOf(p.inner, format) }

// RouteText keeps the inner provider's routing visible through the wrapper.
func (p *scrubProvider) RouteText(text string) string { return extract.RouteOfText(p.inner, text) }

func (p *scrubProvider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	resp, err := p.inner.Extract(ctx, req)
	if resp != nil {
		clean := *resp
		clean.Output = p.secrets.Bytes(resp.Output)
		clean.Model = p.secrets.String(resp.Model)
		clean.RequestID = p.secrets.String(resp.RequestID)
		resp = &clean
	}
	return resp, scrubError(p.secrets, err)
}

// scrubError returns err with a scrubbed message that still classifies the
// same: a *ProviderError keeps its class, status, Retry-After and category,
// and errors.Is still finds context.Canceled or ErrAuth below it.
func scrubError(s *redact.Scrubber, err error) error {
	if err == nil {
		return nil
	}
	var pe *extract.ProviderError
	if errors.As(err, &pe) {
		clean := *pe
		clean.Msg = s.String(pe.Msg)
		clean.Category = s.String(pe.Category)
		if pe.Err != nil {
			clean.Err = &scrubbedError{msg: s.String(pe.Err.Error()), err: pe.Err}
		}
		return &clean
	}
	return &scrubbedError{msg: s.String(err.Error()), err: err}
}

// scrubbedError shows a scrubbed message and unwraps to the original, so
// the error's identity survives for errors.Is and errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// scrubSink scrubs an outbox sink's error text, which may quote a webhook's
// answer, before it is stored with the event and printed.
func scrubSink(sink outbox.Sink, s *redact.Scrubber) outbox.Sink {
	return outbox.SinkFunc(func(ctx context.Context, ev *store.OutboxEvent) outbox.Result {
		res := sink.Send(ctx, ev)
		res.Err = s.String(res.Err)
		return res
	})
}
