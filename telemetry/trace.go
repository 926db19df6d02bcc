package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ServiceName is the service.name of invx's traces unless OTEL_SERVICE_NAME
// or OTEL_RESOURCE_ATTRIBUTES say otherwise.
const ServiceName = "invx"

// TracingEnabled reports whether the environment asks for traces: an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp, unless
// OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true.
func TracingEnabled(env func(string) string) bool {
	exp := strings.ToLower(strings.TrimSpace(env("OTEL_TRACES_EXPORTER")))
	if strings.EqualFold(strings.TrimSpace(env("OTEL_SDK_DISABLED")), "true") || exp == "none" {
		return false
	}
	return env("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || exp == "otlp"
}

// SetupTracing configures OpenTelemetry tracing from the standard OTEL_*
// variables, read through env: when TracingEnabled, an OTLP/HTTP exporter
// behind a batch span processor, a resource with service.name "invx" (and
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), installed as the global
// tracer provider. The endpoint is taken from env; the exporter reads its
// other settings (headers, timeout, TLS, compression) and the sampler and
// batch settings from the process environment itself.
//
// The resource also carries service.version, version (the invx build),
// unless OTEL_RESOURCE_ATTRIBUTES sets it.
//
// When tracing is off it changes nothing and returns a shutdown that does
// nothing. Otherwise shutdown flushes the spans still buffered, within
// ctx's deadline, and puts the previous global provider back; its error
// says that spans could not be exported (an unreachable collector), which
// callers report as a warning, not as a failed run. Export failures during
// the run are kept for it too, rather than printed by OpenTelemetry's
// global error handler, so they reach the user once, through the caller's
// logger. The error of SetupTracing itself names the variable that is
// wrong (an unusable URL, a protocol other than http/protobuf).
func SetupTracing(ctx context.Context, env func(string) string, version string) (shutdown func(context.Context) error, err error) {
	tp, exp, err := newTracerProvider(ctx, env, version)
	if err != nil || tp == nil {
		return func(context.Context) error { return nil }, err
	}
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	return func(ctx context.Context) error {
		err := tp.Shutdown(ctx)
		otel.SetTracerProvider(prev)
		if first := exp.first(); first != nil {
			// The export error says more than the shutdown's "context
			// deadline exceeded".
			err = first
		}
		if err != nil {
			return fmt.Errorf("export traces: %w", err)
		}
		return nil
	}, nil
}

// keepErrors is a span exporter that keeps the first export error instead
// of returning it: the batch span processor hands returned errors to the
// global OpenTelemetry error handler, which prints them unformatted to
// stderr, once per batch.
type keepErrors struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

func (k *keepErrors) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := k.SpanExporter.ExportSpans(ctx, spans); err != nil {
		k.mu.Lock()
		if k.err == nil {
			k.err = err
		}
		k.mu.Unlock()
	}
	return nil
}

func (k *keepErrors) first() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// newTracerProvider builds the SDK provider SetupTracing installs, and its
// exporter; nil when tracing is off.
func newTracerProvider(ctx context.Context, env func(string) string, version string) (*sdktrace.TracerProvider, *keepErrors, error) {
	if !TracingEnabled(env) {
		return nil, nil, nil
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(env(k)); v != "" {
			if v != "http/protobuf" {
				return nil, nil, fmt.Errorf("%s=%s: invx exports traces over OTLP/HTTP only (http/protobuf)", k, v)
			}
			break
		}
	}
	var opts []otlptracehttp.Option
	switch ep, tep := env("OTEL_EXPORTER_OTLP_ENDPOINT"), env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); {
	case tep != "":
		// A per-signal endpoint is used as it is.
		if _, err := endpointURL("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tep); err != nil {
			return nil, nil, err
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(tep))
	case ep != "":
		// The generic endpoint is a base URL: traces go to /v1/traces under it.
		u, err := endpointURL("OTEL_EXPORTER_OTLP_ENDPOINT", ep)
		if err != nil {
			return nil, nil, err
		}
		u.Path = path.Join("/", u.Path, "v1/traces")
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("create OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", ServiceName),
		attribute.String("service.version", version)))
	if err != nil {
		return nil, nil, fmt.Errorf("trace resource: %w", err)
	}
	if res, err = resource.Merge(res, envResource(env)); err != nil {
		return nil, nil, fmt.Errorf("trace resource: %w", err)
	}
	kept := &keepErrors{SpanExporter: exp}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(kept), sdktrace.WithResource(res)), kept, nil
}

func endpointURL(name, v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New(name + ": want an http:// or https:// URL")
	}
	return u, nil
}

// envResource is OTEL_RESOURCE_ATTRIBUTES (key=value pairs separated by
// commas, values percent-encoded) and OTEL_SERVICE_NAME, which wins.
// Malformed pairs are ignored.
func envResource(env func(string) string) *resource.Resource {
	var attrs []attribute.KeyValue
	for _, kv := range strings.Split(env("OTEL_RESOURCE_ATTRIBUTES"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			attrs = append(attrs, attribute.String(k, dv))
		}
	}
	if name := strings.TrimSpace(env("OTEL_SERVICE_NAME")); name != "" {
		attrs = append(attrs, attribute.String("service.name", name))
	}
	return resource.NewSchemaless(attrs...)
}

// Revision is the VCS revision invx was built from (with "-dirty" when the
// work tree had changes), or "unknown" (go test, go run).
func Revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
