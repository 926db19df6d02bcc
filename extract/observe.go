package extract

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/invx/invx/store"
)

// Metrics receives a run's measurements. Implementations keep labels
// bounded: tenant, provider, model, schema version, outcome, class and
// category come from small fixed sets; job keys, paths and document content
// never reach them.
type Metrics interface {
	// Attempt is called once per finished attempt.
	Attempt(a AttemptMetric)
	// Committed is called once per committed result.
	Committed(tenant, schemaVersion string)
	// Duplicates counts documents suppressed as duplicates at enqueue.
	Duplicates(tenant string, n int)
	// LeaseRecovered counts jobs taken over from an expired lease.
	LeaseRecovered(tenant string)
	// StaleCommit counts commits rejected by the fence.
	StaleCommit(tenant string)
	// Skipped counts a file discovery passed over, by reason (one of
	// SkipReasons).
	Skipped(tenant, reason string)
	// ReviewOpened counts a review reason a commit opened (one of
	// ReviewReasons).
	ReviewOpened(tenant, reason string)
}

// ReviewReasons lists the review reasons a commit can open, so metrics can
// keep the reason label to a known set and start each series at 0.
func ReviewReasons() []string {
	return []string{store.ReasonIncomplete, store.ReasonPossibleDuplicate, store.ReasonArithmetic}
}

// SkipReasons lists every reason discovery gives for passing over a file,
// so that metrics can keep the reason label to a known set and start each
// counter at 0. A test checks that it names every Skip constant.
func SkipReasons() []string {
	return []string{SkipHidden, SkipNotRegular, SkipOversized, SkipBinary, SkipNotUTF8, SkipEmpty,
		SkipNotIncluded, SkipUnreadable, SkipBadName, SkipUndecodable, SkipNotEInvoice, SkipNoTextLayer, SkipBadPDF}
}

// GenAISystem is the OpenTelemetry gen_ai.system of a provider: the
// vendor API it speaks, or "" for providers that are not a generative model
// (rules, command, replay).
func GenAISystem(provider string) string {
	switch provider {
	case "openai", "anthropic", "ollama":
		return provider
	}
	return ""
}

// AttemptMetric describes one finished attempt.
type AttemptMetric struct {
	Tenant        string
	Provider      string
	Model         string
	SchemaVersion string
	Outcome       string
	Class         string
	Category      string
	Duration      time.Duration
	InputTokens   int64
	OutputTokens  int64
}

const tracerName = "github.com/invx/invx/extract"

func (r *Runner) tracer() trace.Tracer {
	if r.Tracer != nil {
		return r.Tracer
	}
	return otel.Tracer(tracerName)
}

// endCallSpan closes a provider-call span with what can be said about the
// call without its content: model, tokens, status, error class.
func endCallSpan(span trace.Span, resp *Response, err error) {
	if resp != nil {
		span.SetAttributes(attribute.String("invx.model", resp.Model),
			attribute.Int64("invx.input_tokens", resp.InputTokens), attribute.Int64("invx.output_tokens", resp.OutputTokens))
		if resp.HTTPStatus != 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", resp.HTTPStatus))
		}
	}
	if err != nil {
		// The class, never the message: provider messages may quote input.
		span.SetAttributes(attribute.String("invx.error_class", string(Classify(err))))
		span.SetStatus(codes.Error, string(Classify(err)))
	}
	span.End()
}

// observe reports one finished attempt to the log, the metrics and its span.
func (r *Runner) observe(ctx context.Context, l *store.Lease, info store.AttemptInfo, log *slog.Logger) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("invx.outcome", info.Outcome), attribute.String("invx.model", info.Model),
		attribute.Int64("invx.input_tokens", info.InputTokens), attribute.Int64("invx.output_tokens", info.OutputTokens))
	if info.ErrorClass != "" {
		span.SetAttributes(attribute.String("invx.error_class", info.ErrorClass))
	}
	if info.Category != "" {
		span.SetAttributes(attribute.String("invx.category", info.Category))
	}
	if sys := GenAISystem(info.Provider); sys != "" {
		// The GenAI semantic conventions, so that generic LLM dashboards
		// read invx's attempts. Model names and token counts only: never a
		// prompt or a completion.
		span.SetAttributes(attribute.String("gen_ai.system", sys), attribute.String("gen_ai.operation.name", "chat"))
		if r.Model != "" {
			span.SetAttributes(attribute.String("gen_ai.request.model", r.Model))
		}
		if info.Model != "" {
			span.SetAttributes(attribute.String("gen_ai.response.model", info.Model))
		}
		if info.InputTokens > 0 || info.OutputTokens > 0 {
			span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", info.InputTokens),
				attribute.Int64("gen_ai.usage.output_tokens", info.OutputTokens))
		}
	}
	if info.Outcome != store.OutcomeSucceeded {
		span.SetStatus(codes.Error, info.Outcome)
	}
	span.End()
	if r.Metrics != nil {
		r.Metrics.Attempt(AttemptMetric{Tenant: l.Tenant, Provider: info.Provider, Model: info.Model,
			SchemaVersion: l.SchemaVersion, Outcome: info.Outcome, Class: info.ErrorClass, Category: info.Category,
			Duration: info.Duration, InputTokens: info.InputTokens, OutputTokens: info.OutputTokens})
	}
	lvl := slog.LevelInfo
	if info.Outcome == store.OutcomeSucceeded {
		lvl = slog.LevelDebug
	}
	// attempt, provider and model are on log already (see process).
	log.Log(ctx, lvl, "attempt finished", "stage", "attempt", "outcome", info.Outcome,
		"error_class", info.ErrorClass, "category", info.Category, "duration_ms", info.Duration.Milliseconds(),
		"input_tokens", info.InputTokens, "output_tokens", info.OutputTokens)
}
