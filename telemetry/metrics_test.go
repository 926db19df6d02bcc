package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/telemetry"
)

// fakeProvider answers with ExtractFunc.
type fakeProvider struct {
	ExtractFunc func(req *extract.Request) (*extract.Response, error)
}

func (p *fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Extract(_ context.Context, req *extract.Request) (*extract.Response, error) {
	return p.ExtractFunc(req)
}

func answer(out string) *extract.Response {
	return &extract.Response{Output: []byte(out), Model: "fake-model-1", InputTokens: 100, OutputTokens: 20}
}

// run works five documents through the real pipeline with a fake provider
// and returns the registry the metrics went to:
//
//	ok      valid at once                         succeeded
//	dup     the same text as ok                   duplicate, no attempt
//	repair  unknown field, then valid             rejected, succeeded
//	bad     evidence not in the text, twice       rejected, rejected
//	flaky   transient error, then valid           retry, succeeded
func run(t *testing.T) (*prometheus.Registry, *telemetry.Metrics, *extracttest.Env) {
	t.Helper()
	unknown := strings.Replace(extracttest.ValidAnswer, "{", `{"extra":"x",`, 1)
	badEvidence := strings.Replace(extracttest.ValidAnswer, "PO Number: 4500012345", "PO Number: 999", 1)
	var mu sync.Mutex
	p := &fakeProvider{ExtractFunc: func(req *extract.Request) (*extract.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(req.Text, "Ref: repair") && req.Feedback == nil:
			return answer(unknown), nil
		case strings.Contains(req.Text, "Ref: bad"):
			return answer(badEvidence), nil
		case strings.Contains(req.Text, "Ref: flaky") && req.Attempt == 1:
			return nil, &extract.ProviderError{Class: extract.ClassTransient, Status: 503, Msg: "overloaded"}
		}
		return answer(extracttest.ValidAnswer), nil
	}}
	env := extracttest.New(t)
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	r := env.Runner(p)
	r.Metrics = m
	_, err := env.Run(t, r,
		extracttest.Doc("ok.txt", extracttest.Invoice),
		extracttest.Doc("dup.txt", extracttest.Invoice),
		extracttest.Doc("repair.txt", extracttest.Invoice+"Ref: repair\n"),
		extracttest.Doc("bad.txt", extracttest.Invoice+"Ref: bad\n"),
		extracttest.Doc("flaky.txt", extracttest.Invoice+"Ref: flaky\n"))
	if err != nil {
		t.Fatal(err)
	}
	return reg, m, env
}

// samples flattens what g gathers into "name{l1=v1,...}" -> value, with
// histograms as their sample count.
func samples(t *testing.T, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return flatten(mfs)
}

func flatten(mfs []*dto.MetricFamily) map[string]float64 {
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

func TestMetricsAfterRun(t *testing.T) {
	t.Parallel()
	reg, m, env := run(t)
	if err := m.RecordQueue(t.Context(), env.Store, "default", time.Now()); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"invx_attempts_total{outcome=succeeded,provider=fake,tenant=default}":                                            3,
		"invx_attempts_total{outcome=rejected,provider=fake,tenant=default}":                                             3,
		"invx_attempts_total{outcome=retry,provider=fake,tenant=default}":                                                1,
		"invx_commits_total{schema_version=invoice-summary-v1,tenant=default}":                                           3,
		"invx_rejections_total{category=unknown_field,provider=fake,schema_version=invoice-summary-v1,tenant=default}":   1,
		"invx_rejections_total{category=action_evidence,provider=fake,schema_version=invoice-summary-v1,tenant=default}": 2,
		"invx_duplicates_suppressed_total{tenant=default}":                                                               1,
		"invx_tokens_total{direction=input,provider=fake,tenant=default}":                                                600,
		"invx_tokens_total{direction=output,provider=fake,tenant=default}":                                               120,
		"invx_provider_latency_seconds{provider=fake}":                                                                   7,
		"invx_queue_oldest_age_seconds{tenant=default}":                                                                  0,
		// One invoice.committed and one action event per commit.
		"invx_outbox_pending{tenant=default}": 6,
	}
	if diff := cmp.Diff(want, samples(t, reg)); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestMetricsBoundLabels(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	// A provider that invents categories and outcomes cannot add series.
	for _, c := range []string{"DE44 5001 0517 5407 3249 31", "api_error_x1", "unknown_field"} {
		m.Attempt(extract.AttemptMetric{Tenant: "acme", Provider: "fake", SchemaVersion: "v1", Outcome: "rejected", Category: c})
	}
	m.Attempt(extract.AttemptMetric{Tenant: "acme", Provider: "fake", Outcome: "exploded"})
	// No call made: no provider, no latency sample.
	m.Attempt(extract.AttemptMetric{Tenant: "acme", Outcome: "failed", Class: "max_attempts"})
	want := map[string]float64{
		"invx_attempts_total{outcome=rejected,provider=fake,tenant=acme}":                           3,
		"invx_attempts_total{outcome=other,provider=fake,tenant=acme}":                              1,
		"invx_attempts_total{outcome=failed,provider=none,tenant=acme}":                             1,
		"invx_rejections_total{category=other,provider=fake,schema_version=v1,tenant=acme}":         2,
		"invx_rejections_total{category=unknown_field,provider=fake,schema_version=v1,tenant=acme}": 1,
		"invx_provider_latency_seconds{provider=fake}":                                              4,
	}
	if diff := cmp.Diff(want, samples(t, reg)); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestWriteTextfile(t *testing.T) {
	t.Parallel()
	reg, _, _ := run(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "invx.prom")
	if err := os.WriteFile(path, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := telemetry.WriteTextfile(path, reg); err != nil {
		t.Fatal(err)
	}
	// Replaced by rename: no temporary file is left next to it.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "invx.prom" {
		t.Errorf("directory holds %v, want only invx.prom", entries)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (readable by the node exporter)", fi.Mode().Perm())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("textfile does not parse: %v", err)
	}
	var list []*dto.MetricFamily
	for _, mf := range fams {
		list = append(list, mf)
	}
	got := flatten(list)
	for k, v := range map[string]float64{
		"invx_attempts_total{outcome=succeeded,provider=fake,tenant=default}":  3,
		"invx_commits_total{schema_version=invoice-summary-v1,tenant=default}": 3,
	} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	for _, name := range []string{"invx_attempts_total", "invx_provider_latency_seconds", "invx_tokens_total"} {
		if fams[name] == nil || fams[name].GetHelp() == "" {
			t.Errorf("family %s missing or without HELP", name)
		}
	}
}

func TestPush(t *testing.T) {
	t.Parallel()
	type got struct {
		method, path, user, pass string
		body                     []byte
	}
	reqs := make(chan got, 4)
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u, p, _ := r.BasicAuth()
		reqs <- got{r.Method, r.URL.EscapedPath(), u, p, b}
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(srv.Close)

	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	m.Committed("acme", "invoice-summary-v1")
	m.Committed("other", "invoice-summary-v1")
	m.Attempt(extract.AttemptMetric{Tenant: "acme", Provider: "rules", Outcome: "succeeded", Duration: time.Millisecond})

	url := strings.Replace(srv.URL, "http://", "http://ops:s3cret@", 1)
	if err := telemetry.Push(t.Context(), url, "acme", reg); err != nil {
		t.Fatal(err)
	}
	r := <-reqs
	if r.method != http.MethodPut || r.path != "/metrics/job/invx/tenant/acme" {
		t.Errorf("got %s %s, want PUT /metrics/job/invx/tenant/acme", r.method, r.path)
	}
	if r.user != "ops" || r.pass != "s3cret" {
		t.Errorf("basic auth = %q/%q, want the URL's user and password", r.user, r.pass)
	}
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(strings.NewReader(string(r.body)))
	if err != nil {
		// The client pushes the protobuf format by default.
		fams = decodeDelimited(t, r.body)
	}
	var list []*dto.MetricFamily
	for _, mf := range fams {
		list = append(list, mf)
	}
	want := map[string]float64{
		// The group carries the tenant: the series lose their own label,
		// and the other tenant's are not pushed into acme's group.
		"invx_commits_total{schema_version=invoice-summary-v1}": 1,
		"invx_attempts_total{outcome=succeeded,provider=rules}": 1,
		"invx_provider_latency_seconds{provider=rules}":         1,
	}
	if diff := cmp.Diff(want, flatten(list)); diff != "" {
		t.Errorf("pushed (-want +got):\n%s", diff)
	}

	status.Store(http.StatusInternalServerError)
	err = telemetry.Push(t.Context(), url, "acme", reg)
	select {
	case <-reqs:
	default:
		t.Errorf("second push never reached the gateway: %v", err)
	}
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("push to a failing gateway: err = %v; want an error without the password", err)
	}
	if err := telemetry.Push(t.Context(), "not a url", "acme", reg); err == nil {
		t.Error("push to a malformed URL: no error")
	}
}

func decodeDelimited(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	dec := expfmt.NewDecoder(strings.NewReader(string(body)), expfmt.NewFormat(expfmt.TypeProtoDelim))
	out := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("decode pushed body: %v", err)
		}
		out[mf.GetName()] = mf
	}
}
