package cmd_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/internal/batchfake"
	"github.com/invx/invx/schema"
)

// A run through the batch API is priced at half in invx stats: its tokens
// are reported as batch tokens, and the estimated cost is half the price of
// the same tokens sent synchronously. invx batch list shows the batch.
func TestStatsPricesBatchAtHalf(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	fake := batchfake.NewOpenAI(t)
	fake.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1))
	fake.SetPolls(0)
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	r := e.invxEnv(env, "run", "--quiet", "--batch", "--batch-poll", "1ms", "--schema", schema.V1, "--provider", "openai",
		"--model", "gpt-test", "--base-url", fake.URL, e.in)
	if r.code != 0 && r.code != 3 {
		t.Fatalf("run --batch: exit %d\n%s", r.code, r.stderr)
	}
	if c := fake.Counts(); c.Creations != 1 {
		t.Fatalf("the fake saw %d batch creations, want 1\n%s", c.Creations, r.stderr)
	}
	s := parseStats(t, e.must(0, "stats", "--json", "--price", "openai:gpt-test=1/2"))
	got := s.Tenants[0]
	if len(got.Tokens) != 1 {
		t.Fatalf("tokens: %+v, want one row (openai:gpt-test)", got.Tokens)
	}
	u := got.Tokens[0]
	full := (float64(u.InputTokens)*1 + float64(u.OutputTokens)*2) / 1e6
	if u.InputTokens == 0 || u.BatchInput != u.InputTokens || u.BatchOutput != u.OutputTokens || u.EstimatedCost == nil ||
		math.Abs(*u.EstimatedCost-full/2) > 1e-12 || got.EstimatedCost == nil || math.Abs(*got.EstimatedCost-full/2) > 1e-12 {
		t.Errorf("tokens %+v cost %v; want every token a batch token, cost %v (half of %v)", u, got.EstimatedCost, full/2, full)
	}
	r = e.must(0, "stats")
	if !strings.Contains(r.stdout, "at half price") {
		t.Errorf("stats table does not say the batch tokens are at half price:\n%s", r.stdout)
	}
	r = e.must(0, "batch", "list")
	if f := strings.Fields(r.stdout); len(f) < 8 || f[0] != "1" || f[1] != "openai" || f[3] != "collected" {
		t.Errorf("batch list: want batch 1 of openai collected\n%s", r.stdout)
	}
}

// Batch flags and commands refuse what they cannot do, with exit 2 and a
// Try line: --batch with a provider that has no batch API, --detach
// without --batch, a batch that does not exist.
func TestBatchUsageErrors(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--batch", e.in}, "provider rules has no batch API"},
		{[]string{"run", "--detach", e.in}, "--detach and --repair-sync need --batch"},
		{[]string{"work", "--batch", "--provider", "ollama", "--model", "m"}, "provider ollama has no batch API"},
		{[]string{"batch", "status", "99"}, "batch 99: not found"},
		{[]string{"batch", "cancel"}, "want one batch id"},
		{[]string{"batch"}, "want a subcommand"},
	} {
		r := e.invx(false, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "Try: ") {
			t.Errorf("invx %s: exit %d, want 2 with %q and a Try line\n%s", strings.Join(c.args, " "), r.code, c.want, r.stderr)
		}
	}
}

// On a terminal, invx run --batch draws a progress bar of the requests the
// provider reports done and each batch's state.
func TestBatchProgressBar(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	fake := batchfake.NewOpenAI(t)
	fake.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1))
	fake.SetPolls(2)
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrTTY: true},
		Env: func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-test"}[k] }, Now: e.clock}
	code := cmd.MainWith(context.Background(), f, []string{"--db", e.db, "run", "--batch", "--batch-poll", "1ms", "--schema",
		schema.V1, "--provider", "openai", "--model", "gpt-test", "--base-url", fake.URL, e.in})
	if code != 0 && code != 3 {
		t.Fatalf("run --batch: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{"batch 1 in_progress", "batch 1 completed", "requests"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("the progress bar lacks %q:\n%q", want, errOut.String())
		}
	}
}
