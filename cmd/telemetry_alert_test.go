package cmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/invx/invx/cmd"
)

// alertEnv is a database and the flags and environment of the runs that
// use it, for the tests of what operators alert on.
type alertEnv struct {
	t   *testing.T
	tmp string
	db  string
	env map[string]string
	tp  *sdktrace.TracerProvider
}

func setupAlert(t *testing.T) *alertEnv {
	t.Helper()
	tmp := t.TempDir()
	return &alertEnv{t: t, tmp: tmp, db: filepath.Join(tmp, "invx.db"), env: map[string]string{}}
}

// docs writes files (name -> text) into a new directory under the test's
// temporary directory and returns it. A name "@x" copies testdata/input/x.
func (e *alertEnv) docs(dir string, files map[string]string) string {
	e.t.Helper()
	d := filepath.Join(e.tmp, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
	for name, text := range files {
		if from, ok := strings.CutPrefix(text, "@"); ok {
			b, err := os.ReadFile(filepath.Join("testdata", "input", from))
			if err != nil {
				e.t.Fatal(err)
			}
			text = string(b)
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	return d
}

// invx runs the CLI in-process against the env's database.
func (e *alertEnv) invx(args ...string) result {
	e.t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string { return e.env[k] }}
	if e.tp != nil {
		f.TracerProvider = e.tp
	}
	code := cmd.MainWith(e.t.Context(), f, append([]string{"--db", e.db}, args...))
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// must runs invx and fails the test unless it exits want.
func (e *alertEnv) must(want int, args ...string) result {
	e.t.Helper()
	r := e.invx(args...)
	if r.code != want {
		e.t.Fatalf("invx %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
	}
	return r
}

// promFile parses a --metrics-file into "name{l1=v1,...}" -> value
// (labels sorted, histograms as their sample count).
func promFile(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	var list []*dto.MetricFamily
	for _, mf := range fams {
		list = append(list, mf)
	}
	return flattenFamilies(list)
}

func flattenFamilies(mfs []*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(ls)
			key := mf.GetName() + "{" + strings.Join(ls, ",") + "}"
			switch {
			case m.Counter != nil:
				out[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[key] = m.Gauge.GetValue()
			case m.Histogram != nil:
				out[key] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}

// pushed is one request a Pushgateway received.
type pushed struct {
	method, path string
	series       map[string]float64
}

// pushgateway is a loopback Pushgateway: it accepts PUT and POST on
// /metrics/job/<job>/<label>/<value>... with a body in any exposition
// format the client announces (Content-Type), as the real one does, and
// records what it decoded.
func pushgateway(t *testing.T) (*httptest.Server, func() []pushed) {
	t.Helper()
	var (
		mu   sync.Mutex
		reqs []pushed
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method != http.MethodPut && r.Method != http.MethodPost) || !strings.HasPrefix(r.URL.EscapedPath(), "/metrics/job/") {
			t.Errorf("pushgateway: unexpected %s %s", r.Method, r.URL.EscapedPath())
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("pushgateway: read body: %v", err)
		}
		dec := expfmt.NewDecoder(bytes.NewReader(body), expfmt.ResponseFormat(r.Header))
		var list []*dto.MetricFamily
		for {
			mf := &dto.MetricFamily{}
			if err := dec.Decode(mf); err == io.EOF {
				break
			} else if err != nil {
				t.Errorf("pushgateway: decode body (%s): %v", r.Header.Get("Content-Type"), err)
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			list = append(list, mf)
		}
		mu.Lock()
		reqs = append(reqs, pushed{r.Method, r.URL.EscapedPath(), flattenFamilies(list)})
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []pushed {
		mu.Lock()
		defer mu.Unlock()
		return append([]pushed(nil), reqs...)
	}
}

// closedURL is an http:// URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// Issue 10 item 16: invx work --all-tenants pushed one group with tenant=""
// and no tenant's counters. Every tenant's counters arrive, in the group of
// that tenant (as invx run --tenant pushes them), and neither the pushes
// nor the metrics file hold an empty tenant.
func TestWorkAllTenantsPushesEveryTenant(t *testing.T) {
	t.Parallel()
	e := setupAlert(t)
	acme := e.docs("acme", map[string]string{"a.txt": "@a.txt", "b.txt": "@b.txt"})
	beta := e.docs("beta", map[string]string{"b.txt": "@b.txt"})
	e.must(cmd.ExitOK, "--tenant", "acme", "run", "--enqueue-only", "--quiet", acme)
	e.must(cmd.ExitOK, "--tenant", "beta", "run", "--enqueue-only", "--quiet", beta)

	srv, got := pushgateway(t)
	prom := filepath.Join(e.tmp, "work.prom")
	r := e.must(cmd.ExitOK, "work", "--all-tenants", "--json", "--quiet", "--pushgateway", srv.URL, "--metrics-file", prom)
	if !strings.Contains(r.stdout, `"committed":3`) {
		t.Fatalf("work committed other than 3:\n%s", r.stdout)
	}

	groups := map[string]map[string]float64{}
	for _, p := range got() {
		tenant, ok := strings.CutPrefix(p.path, "/metrics/job/invx/tenant/")
		if !ok || tenant == "" || strings.Contains(tenant, "/") {
			t.Errorf("push to %s %s: want /metrics/job/invx/tenant/<tenant>", p.method, p.path)
			continue
		}
		if groups[tenant] != nil {
			t.Errorf("tenant %s pushed twice", tenant)
		}
		groups[tenant] = p.series
	}
	for tenant, commits := range map[string]float64{"acme": 2, "beta": 1} {
		g := groups[tenant]
		if g == nil {
			t.Errorf("no push for tenant %s; pushed groups %v", tenant, keys(groups))
			continue
		}
		if v := g["invx_commits_total{schema_version=invoice-v2}"]; v != commits {
			t.Errorf("tenant %s: pushed commits %v, want %v\n%v", tenant, v, commits, g)
		}
		if v := g["invx_attempts_total{outcome=succeeded,provider=rules}"]; v != commits {
			t.Errorf("tenant %s: pushed succeeded attempts %v, want %v", tenant, v, commits)
		}
		// The group carries the tenant: no series repeats it, and no other
		// tenant's series is in this group.
		for k := range g {
			if strings.Contains(k, "tenant=") {
				t.Errorf("tenant %s: pushed series %s carries a tenant label", tenant, k)
			}
		}
	}
	if len(groups) != 2 {
		t.Errorf("pushed groups %v, want acme and beta", keys(groups))
	}

	file := promFile(t, prom)
	for k := range file {
		if strings.Contains(k, "tenant=,") || strings.HasSuffix(k, "tenant=}") {
			t.Errorf("metrics file holds a series with an empty tenant: %s", k)
		}
	}
	for tenant, commits := range map[string]float64{"acme": 2, "beta": 1} {
		k := fmt.Sprintf("invx_commits_total{schema_version=invoice-v2,tenant=%s}", tenant)
		if file[k] != commits {
			t.Errorf("metrics file: %s = %v, want %v", k, file[k], commits)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// warnings returns the log lines of stderr at level WARN, checking that
// with --log-format json every line is a JSON object.
func warnings(t *testing.T, stderr, format string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		line := sc.Text()
		if format == "json" && strings.HasPrefix(line, "{") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Errorf("log line is not JSON: %v: %s", err, line)
				continue
			}
			if ev["level"] == "WARN" {
				out = append(out, line)
			}
			continue
		}
		if strings.Contains(line, "level=WARN") {
			out = append(out, line)
		}
	}
	return out
}

// Issue 10 item 17: a Pushgateway or trace collector that is down is one
// warning through the logger (a JSON line with --log-format json), and a
// run whose documents are all committed still exits 0. Before, the run
// exited 1.
func TestTelemetryDownIsAWarning(t *testing.T) {
	// Not parallel: the OTLP cases install a global tracer provider, which
	// a parallel run could pick up.
	for _, sink := range []string{"pushgateway", "otlp"} {
		for _, format := range []string{"json", "text"} {
			t.Run(sink+"/"+format, func(t *testing.T) {
				e := setupAlert(t)
				in := e.docs("in", map[string]string{"a.txt": "@a.txt", "b.txt": "@b.txt"})
				args := []string{"--log-format", format, "run", "--quiet", "--metrics-file", filepath.Join(e.tmp, "invx.prom")}
				down := closedURL(t)
				if sink == "pushgateway" {
					args = append(args, "--pushgateway", down)
				} else {
					e.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = down
				}
				r := e.invx(append(args, in)...)
				if r.code != cmd.ExitOK {
					t.Errorf("exit %d, want 0 (every document committed)\n%s", r.code, r.stderr)
				}
				if states := jobStates(t, e.db); fmt.Sprint(states) != "map[succeeded:2]" {
					t.Errorf("job states %v, want 2 succeeded", states)
				}
				warns := warnings(t, r.stderr, format)
				if len(warns) != 1 {
					t.Fatalf("%d warning lines, want 1; stderr:\n%s", len(warns), r.stderr)
				}
				want := map[string]string{"pushgateway": "metrics not pushed", "otlp": "traces not exported"}[sink]
				if !strings.Contains(warns[0], want) || !strings.Contains(warns[0], "stage") {
					t.Errorf("warning %q, want %q with its stage", warns[0], want)
				}
				// Nothing else on stderr: no unformatted error from the
				// OpenTelemetry SDK, no "invx: ..." failure line.
				for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
					if line != warns[0] && line != "" {
						t.Errorf("stderr line besides the warning: %q", line)
					}
				}
			})
		}
	}
}

// Issue 10 item 18: the metrics file holds the build, the last success,
// the skipped files by reason, and every counter the run can touch from 0.
func TestMetricsFileAlertSeries(t *testing.T) {
	t.Parallel()
	e := setupAlert(t)
	in := e.docs("in", map[string]string{"a.txt": "@a.txt", "b.txt": "@b.txt", ".hidden.txt": "@a.txt", "notes.md": "notes\n"})
	prom := filepath.Join(e.tmp, "invx.prom")
	before := time.Now()
	e.must(cmd.ExitOK, "--tenant", "acme", "run", "--quiet", "--metrics-file", prom, in)
	got := promFile(t, prom)

	want := map[string]float64{
		"invx_files_skipped_total{reason=hidden,tenant=acme}":       1,
		"invx_files_skipped_total{reason=not_included,tenant=acme}": 1,
		// Zero from the start, so that rate() sees the first one.
		"invx_files_skipped_total{reason=binary,tenant=acme}":                                                  0,
		"invx_files_skipped_total{reason=not_utf8,tenant=acme}":                                                0,
		"invx_attempts_total{outcome=succeeded,provider=rules,tenant=acme}":                                    2,
		"invx_attempts_total{outcome=rejected,provider=rules,tenant=acme}":                                     0,
		"invx_attempts_total{outcome=failed,provider=rules,tenant=acme}":                                       0,
		"invx_rejections_total{category=unknown_field,provider=rules,schema_version=invoice-v2,tenant=acme}":   0,
		"invx_rejections_total{category=action_evidence,provider=rules,schema_version=invoice-v2,tenant=acme}": 0,
		"invx_rejections_total{category=decode,provider=rules,schema_version=invoice-v2,tenant=acme}":          0,
		"invx_rejections_total{category=arithmetic,provider=rules,schema_version=invoice-v2,tenant=acme}":      0,
		"invx_lease_recoveries_total{tenant=acme}":                                                             0,
		"invx_stale_commits_total{tenant=acme}":                                                                0,
		"invx_duplicates_suppressed_total{tenant=acme}":                                                        0,
		"invx_commits_total{schema_version=invoice-v2,tenant=acme}":                                            2,
		"invx_provider_latency_seconds{provider=rules,tenant=acme}":                                            2,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	var build []string
	for k, v := range got {
		if strings.HasPrefix(k, "invx_build_info{") {
			build = append(build, fmt.Sprintf("%s %v", k, v))
		}
	}
	if len(build) != 1 || !strings.Contains(build[0], "version=dev") || !strings.Contains(build[0], "revision=") ||
		!strings.HasSuffix(build[0], " 1") {
		t.Errorf("build info %v, want one series version=dev with a revision, value 1", build)
	}
	last, ok := got["invx_last_success_timestamp_seconds{}"]
	if !ok || last < float64(before.Unix()) || last > float64(time.Now().Unix()+1) {
		t.Errorf("last success %v (present %v), want the run's end, after %d", last, ok, before.Unix())
	}

	// A run that leaves a document for review is no success: the file
	// keeps the last success's time, for alerts on its age.
	bad := e.docs("bad", map[string]string{"c.txt": leakDoc("CASE-BAD")})
	script := filepath.Join(e.tmp, "refuse.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho 'no JSON here'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.must(cmd.ExitNeedsReview, "--tenant", "acme", "run", "--quiet", "--metrics-file", prom, "--provider", "command",
		"--command", script, bad)
	got = promFile(t, prom)
	if v, ok := got["invx_last_success_timestamp_seconds{}"]; !ok || v != last {
		t.Errorf("after a run needing review: last success %v (present %v), want the earlier %v", v, ok, last)
	}
	// One answer and one repair, both prose.
	if v := got["invx_attempts_total{outcome=rejected,provider=command,tenant=acme}"]; v != 2 {
		t.Errorf("rejected attempts %v, want 2\n%v", v, got)
	}
}

// Issue 10 item 18: attempt spans carry the GenAI semantic-convention
// attributes for model providers, and none for the offline rules.
func TestAttemptSpanGenAIAttributes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		want map[string]string
	}{
		{"openai", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "openai", "--model", "gpt-test", "--base-url", openAIFake(t, 0).URL + "/v1"}
		}, map[string]string{"gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-test",
			"gen_ai.response.model": "gpt-test-2026", "gen_ai.usage.input_tokens": "812", "gen_ai.usage.output_tokens": "143"}},
		{"anthropic", func(t *testing.T) []string {
			return []string{"--schema", "invoice-summary-v1", "--provider", "anthropic", "--model", "claude-test", "--base-url", anthropicFake(t, 0).URL}
		}, map[string]string{"gen_ai.system": "anthropic", "gen_ai.request.model": "claude-test",
			"gen_ai.response.model": "claude-test-2026", "gen_ai.usage.input_tokens": "812", "gen_ai.usage.output_tokens": "143"}},
		{"rules", func(t *testing.T) []string { return []string{"--provider", "rules"} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setupAlert(t)
			e.env["OPENAI_API_KEY"], e.env["ANTHROPIC_API_KEY"] = leakKey, leakKey
			exp := tracetest.NewInMemoryExporter()
			e.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			t.Cleanup(func() { _ = e.tp.Shutdown(t.Context()) })
			in := e.docs("in", map[string]string{"inv.txt": leakDoc("CASE-VALID")})
			e.must(cmd.ExitOK, append(append([]string{"run", "--quiet"}, tc.args(t)...), in)...)
			var attempts int
			for _, s := range exp.GetSpans() {
				if s.Name != "invx.attempt" {
					continue
				}
				attempts++
				got := map[string]string{}
				for _, kv := range s.Attributes {
					if strings.HasPrefix(string(kv.Key), "gen_ai.") {
						got[string(kv.Key)] = kv.Value.Emit()
					}
				}
				if tc.want == nil && len(got) > 0 {
					t.Errorf("rules attempt span has GenAI attributes %v", got)
				}
				for k, v := range tc.want {
					if got[k] != v {
						t.Errorf("attempt span %s = %q, want %q (all: %v)", k, got[k], v, got)
					}
				}
			}
			if attempts != 1 {
				t.Errorf("%d attempt spans, want 1", attempts)
			}
		})
	}
}
