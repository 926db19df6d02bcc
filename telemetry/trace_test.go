package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/invx/invx/telemetry"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestTracingEnabled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"unset", nil, false},
		{"service name only", map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"exporter none wins", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
	} {
		if got := telemetry.TracingEnabled(envOf(tc.env)); got != tc.want {
			t.Errorf("%s: TracingEnabled = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The OTEL tests change the global tracer provider, so they do not run in
// parallel with each other.
func TestSetupTracing(t *testing.T) {
	var (
		mu    sync.Mutex
		posts []*collectortrace.ExportTraceServiceRequest
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			t.Errorf("collector: body is not an OTLP export request: %v", err)
		}
		mu.Lock()
		posts = append(posts, req)
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)

	t.Run("off when unset", func(t *testing.T) {
		before := otel.GetTracerProvider()
		shutdown, err := telemetry.SetupTracing(t.Context(), envOf(map[string]string{"OTEL_SERVICE_NAME": "x"}), "v9.9.9-test")
		if err != nil {
			t.Fatal(err)
		}
		if otel.GetTracerProvider() != before {
			t.Error("tracing off, yet the global tracer provider changed")
		}
		_, span := otel.Tracer("test").Start(t.Context(), "nothing")
		span.End()
		if err := shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(posts) != 0 {
			t.Errorf("tracing off, yet %d export(s) arrived", len(posts))
		}
	})

	t.Run("bad protocol", func(t *testing.T) {
		_, err := telemetry.SetupTracing(t.Context(), envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}), "v9.9.9-test")
		if err == nil {
			t.Error("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: no error")
		}
	})

	t.Run("on with an endpoint", func(t *testing.T) {
		before := otel.GetTracerProvider()
		shutdown, err := telemetry.SetupTracing(t.Context(), envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL,
			"OTEL_RESOURCE_ATTRIBUTES":    "deployment.environment=test%20lab",
		}), "v9.9.9-test")
		if err != nil {
			t.Fatal(err)
		}
		if otel.GetTracerProvider() == before {
			t.Fatal("tracing on, yet the global tracer provider is unchanged")
		}
		_, span := otel.Tracer("test").Start(t.Context(), "invx.run")
		span.End()
		ctx, cancel := contextWithTimeout(t, 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if otel.GetTracerProvider() != before {
			t.Error("shutdown did not put the previous tracer provider back")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(posts) == 0 {
			t.Fatal("no export arrived after shutdown")
		}
		if paths[0] != "POST /v1/traces" {
			t.Errorf("export went to %s, want POST /v1/traces", paths[0])
		}
		attrs := map[string]string{}
		var names []string
		for _, rs := range posts[0].GetResourceSpans() {
			for _, kv := range rs.GetResource().GetAttributes() {
				attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names = append(names, s.GetName())
				}
			}
		}
		if attrs["service.name"] != telemetry.ServiceName || attrs["deployment.environment"] != "test lab" ||
			attrs["service.version"] != "v9.9.9-test" {
			t.Errorf("resource = %v, want service.name invx, service.version v9.9.9-test and the OTEL_RESOURCE_ATTRIBUTES", attrs)
		}
		if len(names) != 1 || names[0] != "invx.run" {
			t.Errorf("spans = %v, want [invx.run]", names)
		}
	})

	t.Run("service name from env", func(t *testing.T) {
		mu.Lock()
		posts = nil
		mu.Unlock()
		shutdown, err := telemetry.SetupTracing(t.Context(), envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/v1/traces", "OTEL_SERVICE_NAME": "invx-nightly"}), "v9.9.9-test")
		if err != nil {
			t.Fatal(err)
		}
		_, span := otel.Tracer("test").Start(t.Context(), "invx.run")
		span.End()
		if err := shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(posts) == 0 {
			t.Fatal("no export arrived")
		}
		for _, kv := range posts[0].GetResourceSpans()[0].GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" && kv.GetValue().GetStringValue() != "invx-nightly" {
				t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's", kv.GetValue().GetStringValue())
			}
		}
	})
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	return context.WithTimeout(t.Context(), d)
}
