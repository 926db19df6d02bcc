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
		"invx_provider_latency_seconds{provider=fake,tenant=default}":                                                    7,
		"invx_queue_oldest_age_seconds{tenant=default}":                                                                  0,
		// The fake answers one invoice for three texts: the second commit
		// is a possible duplicate of the first, the third of both, and
		// their events (one invoice.committed and one action each) are
		// held, not pending.
		"invx_outbox_pending{tenant=default}":                                2,
		"invx_review_opened_total{reason=possible_duplicate,tenant=default}": 3,
		"invx_review_open{reason=possible_duplicate,tenant=default}":         3,
		"invx_review_open{reason=incomplete,tenant=default}":                 0,
		"invx_review_open{reason=arithmetic,tenant=default}":                 0,
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
	// Skip reasons too.
	m.Skipped("acme", extract.SkipBinary)
	m.Skipped("acme", "DE44 5001 0517 5407 3249 31")
	want := map[string]float64{
		"invx_files_skipped_total{reason=binary,tenant=acme}":                                       1,
		"invx_files_skipped_total{reason=other,tenant=acme}":                                        1,
		"invx_attempts_total{outcome=rejected,provider=fake,tenant=acme}":                           3,
		"invx_attempts_total{outcome=other,provider=fake,tenant=acme}":                              1,
		"invx_attempts_total{outcome=failed,provider=none,tenant=acme}":                             1,
		"invx_rejections_total{category=other,provider=fake,schema_version=v1,tenant=acme}":         2,
		"invx_rejections_total{category=unknown_field,provider=fake,schema_version=v1,tenant=acme}": 1,
		"invx_provider_latency_seconds{provider=fake,tenant=acme}":                                  4,
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
	m.Attempt(extract.AttemptMetric{Tenant: "other", Provider: "rules", Outcome: "succeeded", Duration: time.Millisecond})
	m.SetBuildInfo("v1.2.3", "abc123")

	url := strings.Replace(srv.URL, "http://", "http://ops:s3cret@", 1)
	if err := telemetry.Push(t.Context(), url, "acme", reg); err != nil {
		t.Fatal(err)
	}
	r := <-reqs
	// POST: the families sent replace the group's, the others stay (a
	// failed run's push keeps the last success timestamp).
	if r.method != http.MethodPost || r.path != "/metrics/job/invx/tenant/acme" {
		t.Errorf("got %s %s, want POST /metrics/job/invx/tenant/acme", r.method, r.path)
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
		"invx_build_info{revision=abc123,version=v1.2.3}":       1,
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
	if err := telemetry.Push(t.Context(), url, "", reg); err == nil {
		t.Error(`push for tenant "": no error`)
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

// TestMetricsInit checks that Init starts every series a run can touch at
// 0, and only those: rate() over a tenant's rejections works before the
// first one, and invx work does not reset invx run's skip counts.
func TestMetricsInit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       telemetry.InitParams
		present []string
		absent  []string
	}{
		{"run", telemetry.InitParams{Tenant: "acme", SchemaVersion: "invoice-v2", Provider: "openai", Discovery: true, Work: true},
			[]string{
				"invx_attempts_total{outcome=succeeded,provider=openai,tenant=acme}",
				"invx_attempts_total{outcome=rejected,provider=openai,tenant=acme}",
				"invx_attempts_total{outcome=stale_lease,provider=openai,tenant=acme}",
				"invx_commits_total{schema_version=invoice-v2,tenant=acme}",
				"invx_rejections_total{category=unknown_field,provider=openai,schema_version=invoice-v2,tenant=acme}",
				"invx_rejections_total{category=refusal,provider=openai,schema_version=invoice-v2,tenant=acme}",
				"invx_rejections_total{category=decode,provider=openai,schema_version=invoice-v2,tenant=acme}",
				"invx_files_skipped_total{reason=not_utf8,tenant=acme}",
				"invx_files_skipped_total{reason=oversized,tenant=acme}",
				"invx_files_skipped_total{reason=not_included,tenant=acme}",
				"invx_duplicates_suppressed_total{tenant=acme}",
				"invx_lease_recoveries_total{tenant=acme}",
				"invx_stale_commits_total{tenant=acme}",
				"invx_tokens_total{direction=input,provider=openai,tenant=acme}",
				"invx_tokens_total{direction=output,provider=openai,tenant=acme}",
				"invx_provider_latency_seconds{provider=openai,tenant=acme}",
			}, nil},
		{"enqueue only", telemetry.InitParams{Tenant: "acme", SchemaVersion: "invoice-v2", Provider: "rules", Discovery: true},
			[]string{"invx_files_skipped_total{reason=binary,tenant=acme}", "invx_duplicates_suppressed_total{tenant=acme}"},
			[]string{"invx_attempts_total{outcome=succeeded,provider=rules,tenant=acme}", "invx_commits_total{schema_version=invoice-v2,tenant=acme}"}},
		{"work", telemetry.InitParams{Tenant: "acme", SchemaVersion: "invoice-v2", Provider: "rules", Work: true},
			[]string{"invx_attempts_total{outcome=failed,provider=rules,tenant=acme}"},
			[]string{"invx_files_skipped_total{reason=binary,tenant=acme}", "invx_duplicates_suppressed_total{tenant=acme}"}},
		{"no tenant", telemetry.InitParams{SchemaVersion: "invoice-v2", Provider: "rules", Discovery: true, Work: true},
			nil, []string{"invx_attempts_total{outcome=failed,provider=rules,tenant=}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := prometheus.NewRegistry()
			m := telemetry.NewMetrics(reg)
			m.Init(tc.p)
			got := samples(t, reg)
			for _, k := range tc.present {
				if v, ok := got[k]; !ok || v != 0 {
					t.Errorf("%s = %v (present %v), want 0", k, v, ok)
				}
			}
			for _, k := range tc.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s present, want absent", k)
				}
			}
			for k := range got {
				if strings.Contains(k, "tenant=}") || strings.HasSuffix(k, "tenant=") {
					t.Errorf("series with an empty tenant: %s", k)
				}
			}
			// Every skip reason and every outcome is there, no more.
			n := map[string]int{}
			for k := range got {
				n[k[:strings.Index(k, "{")]]++
			}
			if tc.p.Discovery && tc.p.Tenant != "" && n["invx_files_skipped_total"] != len(extract.SkipReasons()) {
				t.Errorf("%d skip series, want %d", n["invx_files_skipped_total"], len(extract.SkipReasons()))
			}
			if tc.p.Work && tc.p.Tenant != "" && n["invx_attempts_total"] != 7 {
				t.Errorf("%d attempt series, want one per outcome (7)", n["invx_attempts_total"])
			}
		})
	}
}

func TestBuildInfoAndLastSuccess(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	m.SetBuildInfo("", "")
	got := samples(t, reg)
	if got["invx_build_info{revision=unknown,version=unknown}"] != 1 {
		t.Errorf("build info = %v, want one series, unknown/unknown, value 1", got)
	}
	// No success yet: absent, not 0 (which would read as 1970).
	if _, ok := got["invx_last_success_timestamp_seconds{}"]; ok {
		t.Error("invx_last_success_timestamp_seconds present before any success")
	}
	at := time.Date(2026, 11, 30, 2, 0, 0, 500_000_000, time.UTC)
	m.Succeeded(at)
	if v := samples(t, reg)["invx_last_success_timestamp_seconds{}"]; v != 1796004000.5 {
		t.Errorf("last success = %v, want %v", v, 1796004000.5)
	}
}

// TestRecordQueueAllTenants checks that the gauges of an all-tenants run
// name every tenant and no empty one (invx work --all-tenants records its
// own runs under tenant "").
func TestRecordQueueAllTenants(t *testing.T) {
	t.Parallel()
	_, _, env := run(t)
	// A run row with the empty tenant, as invx work --all-tenants writes.
	r := env.Runner(&fakeProvider{ExtractFunc: func(*extract.Request) (*extract.Response, error) {
		return answer(extracttest.ValidAnswer), nil
	}})
	r.Tenant, r.Command, r.RunID = "", "work", "allrun1"
	if err := r.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Finish(t.Context(), time.Now(), "completed"); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m := telemetry.NewMetrics(reg)
	if err := m.RecordQueue(t.Context(), env.Store, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	// Two of the three commits are held as possible duplicates (see
	// TestMetricsAfterRun): their events are not pending.
	want := map[string]float64{"invx_queue_oldest_age_seconds{tenant=default}": 0, "invx_outbox_pending{tenant=default}": 2,
		"invx_review_open{reason=possible_duplicate,tenant=default}": 3, "invx_review_open{reason=incomplete,tenant=default}": 0,
		"invx_review_open{reason=arithmetic,tenant=default}": 0}
	if diff := cmp.Diff(want, samples(t, reg)); diff != "" {
		t.Errorf("gauges (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default"}, m.Tenants()); diff != "" {
		t.Errorf("tenants (-want +got):\n%s", diff)
	}
}
