package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/store/sqlite"
)

// fakeProvider answers with ExtractFunc.
type fakeProvider struct {
	ExtractFunc func(req *extract.Request) (*extract.Response, error)
}

func (*fakeProvider) Name() string { return "fake" }

func (p *fakeProvider) Extract(_ context.Context, req *extract.Request) (*extract.Response, error) {
	return p.ExtractFunc(req)
}

const expectRight = `{"supplier_name": "ACME TOOLS", "invoice_number": "AT-2026-0042", "currency": "EUR", "total_minor": 123450,
 "due_date": "2026-12-31", "action_kinds": ["verify_purchase_order"]}`

// smallSuite has four variants of one invoice, which the fake answers
// differently by the marker line each carries.
func smallSuite(t *testing.T) *Suite {
	t.Helper()
	files := map[string]string{}
	for _, name := range []string{"right", "wrong", "broken", "repaired"} {
		dir := ""
		if name == "broken" {
			dir = "hard/"
		}
		files[dir+name+".txt"] = extracttest.Invoice + "Marker: " + name + "\n"
		files[dir+name+".expect.json"] = expectRight
	}
	s, err := Load(context.Background(), writeSuite(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func smallFake() *fakeProvider {
	return &fakeProvider{ExtractFunc: func(req *extract.Request) (*extract.Response, error) {
		answer := extracttest.ValidAnswer
		switch {
		case strings.Contains(req.Text, "Marker: wrong"):
			answer = strings.Replace(answer, `"invoice_number":"AT-2026-0042"`, `"invoice_number":"4500012345"`, 1)
			answer = strings.Replace(answer, `"kind":"verify_purchase_order"`, `"kind":"review_tax"`, 1)
			// A null is not a wrong value: it must count as not right
			// but not as confidently wrong.
			answer = strings.Replace(answer, `"due_date":"2026-12-31"`, `"due_date":null`, 1)
		case strings.Contains(req.Text, "Marker: broken"):
			answer = "```json\n" + answer + "\n```"
		case strings.Contains(req.Text, "Marker: repaired") && req.Attempt == 1:
			answer = strings.Replace(answer, `"total_minor":123450`, `"total_minor":-1`, 1)
		}
		return &extract.Response{Output: []byte(answer), Model: "fake-1", InputTokens: 1000, OutputTokens: 100}, nil
	}}
}

func runSmall(t *testing.T) *Report {
	t.Helper()
	s := smallSuite(t)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "eval.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	prices := Prices{{Provider: "fake", Model: "fake-1", In: 1, Out: 10}}
	pr, err := Run(ctx, s, &Config{Store: st, Provider: smallFake(), Label: "fake:1", Schema: extracttest.V1(), Tenant: "t1",
		Runner: &extract.Runner{RunID: "eval-test", Owner: "eval-test", Concurrency: 2, MaxAttempts: 5, Repair: 1}, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	return &Report{Suite: s.Name, SchemaVersion: extracttest.V1().Name, Tenant: "t1", Documents: len(s.Docs), Fields: Fields,
		Providers: []*ProviderReport{pr}, Timing: &ReportTiming{}}
}

func TestRun(t *testing.T) {
	t.Parallel()
	r := runSmall(t)
	p := r.Providers[0]
	if p.Committed != 3 || p.Rejected != 1 || p.Failed != 0 || p.Admission != 0.75 {
		t.Errorf("committed %d rejected %d failed %d admission %v; want 3, 1, 0, 0.75", p.Committed, p.Rejected, p.Failed, p.Admission)
	}
	// Attempts: right 1, wrong 1, broken 2 (one repair re-ask), repaired 2.
	if p.Attempts != 6 || p.Repairs != 1 || p.RepairedDocuments != 1 {
		t.Errorf("attempts %d repairs %d repaired %d; want 6, 1, 1", p.Attempts, p.Repairs, p.RepairedDocuments)
	}
	if p.InputTokens != 6000 || p.OutputTokens != 600 || p.Cost == nil || *p.Cost != 0.012 {
		t.Errorf("tokens %d/%d cost %v; want 6000/600 and 0.012", p.InputTokens, p.OutputTokens, p.Cost)
	}
	if diff := cmp.Diff([]string{"fake-1"}, p.Models); diff != "" {
		t.Error(diff)
	}
	acc := map[string]string{}
	for f, fs := range p.Accuracy {
		acc[f] = pctOrDash(fs.Accuracy)
	}
	want := map[string]string{"supplier_name": "75.0%", "invoice_number": "50.0%", "currency": "75.0%", "total_minor": "75.0%",
		"due_date": "50.0%", "action_kinds": "50.0%"}
	if diff := cmp.Diff(want, acc); diff != "" {
		t.Errorf("accuracy (-want +got):\n%s", diff)
	}
	wrong := map[string]int{}
	for f, fs := range p.Accuracy {
		if fs.Wrong > 0 {
			wrong[f] = fs.Wrong
		}
	}
	if diff := cmp.Diff(map[string]int{"invoice_number": 1, "action_kinds": 1}, wrong); diff != "" {
		t.Errorf("confidently wrong (-want +got):\n%s", diff)
	}
	if fs := p.Accuracy["invoice_number"]; fs.WrongRate == nil || *fs.WrongRate != 0.25 {
		t.Errorf("invoice_number wrong rate %v, want 0.25", fs.WrongRate)
	}
	if p.Actions.TP != 2 || p.Actions.FP != 1 || p.Actions.FN != 2 {
		t.Errorf("actions %+v; want tp 2 fp 1 fn 2", p.Actions)
	}
	byName := map[string]*DocResult{}
	for _, d := range p.Results {
		byName[d.Name] = d
	}
	if d := byName["wrong.txt"]; d == nil || !cmp.Equal(d.Fields(), []string{"invoice_number", "due_date", "action_kinds"}) {
		t.Errorf("wrong.txt: %+v", d)
	}
	if d := byName["hard/broken.txt"]; d == nil || d.State != "rejected" || d.Category != "decode" || d.SubSuite != "suite/hard" || len(d.Mismatches) != 0 {
		t.Errorf("hard/broken.txt: %+v", d)
	}
	if d := byName["repaired.txt"]; d == nil || d.Repairs != 1 || d.Attempts != 2 || len(d.Mismatches) != 0 {
		t.Errorf("repaired.txt: %+v", d)
	}
}
