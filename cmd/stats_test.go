package cmd_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, to check figures against the file

	"github.com/invx/invx/cmd"
)

// statsJSON mirrors invx stats --json.
type statsJSON struct {
	GeneratedAt string `json:"generated_at"`
	Since       string `json:"since"`
	Tenants     []struct {
		Tenant             string         `json:"tenant"`
		DocumentsSeen      int            `json:"documents_seen"`
		Committed          int            `json:"committed"`
		Rejected           int            `json:"rejected"`
		RejectedByCategory map[string]int `json:"rejected_by_category"`
		Failed             int            `json:"failed"`
		Held               int            `json:"held"`
		Attempts           int            `json:"attempts"`
		AttemptsByOutcome  map[string]int `json:"attempts_by_outcome"`
		AttemptsPerCommit  *float64       `json:"attempts_per_commit"`
		Duplicates         int            `json:"duplicates_suppressed"`
		LeaseRecoveries    int            `json:"lease_recoveries"`
		StaleLeases        int            `json:"stale_lease_rejections"`
		InputTokens        int64          `json:"input_tokens"`
		OutputTokens       int64          `json:"output_tokens"`
		Tokens             []struct {
			Provider      string   `json:"provider"`
			Model         string   `json:"model"`
			Attempts      int      `json:"attempts"`
			InputTokens   int64    `json:"input_tokens"`
			OutputTokens  int64    `json:"output_tokens"`
			BatchInput    int64    `json:"batch_input_tokens"`
			BatchOutput   int64    `json:"batch_output_tokens"`
			EstimatedCost *float64 `json:"estimated_cost"`
		} `json:"tokens"`
		EstimatedCost        *float64       `json:"estimated_cost"`
		Unpriced             []string       `json:"unpriced"`
		OutboxPending        int            `json:"outbox_pending"`
		ReviewOpen           map[string]int `json:"review_open"`
		OldestPendingSeconds float64        `json:"outbox_oldest_pending_age_seconds"`
		OutboxFailed         int            `json:"outbox_failed"`
		RejectionRate        []struct {
			SchemaVersion string  `json:"schema_version"`
			Provider      string  `json:"provider"`
			Rejected      int     `json:"rejected"`
			Attempts      int     `json:"attempts"`
			Rate          float64 `json:"rate"`
		} `json:"rejection_rate"`
	} `json:"tenants"`
}

func parseStats(t *testing.T, r result) *statsJSON {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var s statsJSON
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, r.stdout)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		t.Fatalf("stats --json printed more than one JSON value (%v):\n%s", err, r.stdout)
	}
	return &s
}

// sqlDB opens the env's database file read-only, to check stats' figures
// against the rows themselves.
func (e *opsEnv) sqlDB() *sql.DB {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.db+"?mode=ro")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func queryCounts(t *testing.T, db *sql.DB, q string, args ...any) map[string]int {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	return out
}

// After a batch with a rejected, a failed and a held document, stats shows
// the figures the database holds.
func TestStatsMatchDatabase(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.mixed()
	// A rerun of the rejected document with repair: more attempts, one
	// more rejected.
	e.write("d.txt", "Northwind again\nInvoice 5\n")
	e.must(cmd.ExitNeedsReview, "run", "--quiet", "--schema", "invoice-summary-v1", "--repair", "1", "--provider", "command", "--command", e.modelScript(), e.in)

	s := parseStats(t, e.must(0, "stats", "--json"))
	if len(s.Tenants) != 1 || s.Tenants[0].Tenant != "default" {
		t.Fatalf("tenants: %+v", s.Tenants)
	}
	got := s.Tenants[0]
	db := e.sqlDB()
	const tenant = `tenant = 'default'`
	want := map[string]int{
		"attempts":          queryInt(t, db, `SELECT count(*) FROM attempts WHERE `+tenant),
		"committed":         queryInt(t, db, `SELECT count(*) FROM results WHERE shadow = 0 AND `+tenant),
		"rejected":          queryInt(t, db, `SELECT count(*) FROM jobs WHERE state = 'rejected' AND `+tenant),
		"failed":            queryInt(t, db, `SELECT count(*) FROM jobs WHERE state = 'failed' AND `+tenant),
		"held":              queryInt(t, db, `SELECT count(*) FROM jobs WHERE state = 'held' AND `+tenant),
		"outbox pending":    queryInt(t, db, `SELECT count(*) FROM outbox WHERE state = 'pending' AND `+tenant),
		"rejected attempts": queryInt(t, db, `SELECT count(*) FROM attempts WHERE outcome = 'rejected' AND `+tenant),
		"review open":       queryInt(t, db, `SELECT count(*) FROM review_reasons WHERE state = 'open' AND `+tenant),
	}
	rejAttempts := 0
	for _, r := range got.RejectionRate {
		rejAttempts += r.Rejected
	}
	gotFigures := map[string]int{"attempts": got.Attempts, "committed": got.Committed, "rejected": got.Rejected,
		"failed": got.Failed, "held": got.Held, "outbox pending": got.OutboxPending, "rejected attempts": rejAttempts,
		"review open": got.ReviewOpen["incomplete"]}
	if diff := cmp.Diff(want, gotFigures); diff != "" {
		t.Errorf("stats vs database (-db +stats):\n%s", diff)
	}
	// The scenario itself, so the comparison above is not vacuous. The
	// committed result states no total: open for review, its event held.
	if want := map[string]int{"attempts": 5, "committed": 1, "rejected": 2, "failed": 1, "held": 1, "outbox pending": 0,
		"rejected attempts": 3, "review open": 1}; !cmp.Equal(want, gotFigures) {
		t.Errorf("figures %v, want %v", gotFigures, want)
	}
	wantCat := queryCounts(t, db, `SELECT coalesce(nullif(last_category, ''), last_error_class), count(*) FROM jobs
		WHERE state = 'rejected' AND `+tenant+` GROUP BY 1`)
	if diff := cmp.Diff(wantCat, got.RejectedByCategory); diff != "" || len(wantCat) == 0 {
		t.Errorf("rejected by category (-db +stats):\n%s", diff)
	}
	wantOutcomes := queryCounts(t, db, `SELECT outcome, count(*) FROM attempts WHERE `+tenant+` GROUP BY 1`)
	if diff := cmp.Diff(wantOutcomes, got.AttemptsByOutcome); diff != "" {
		t.Errorf("attempts by outcome (-db +stats):\n%s", diff)
	}
	if got.AttemptsPerCommit == nil || *got.AttemptsPerCommit != 5 {
		t.Errorf("attempts per commit %v, want 5", got.AttemptsPerCommit)
	}
	if len(got.RejectionRate) != 1 || got.RejectionRate[0].SchemaVersion != "invoice-summary-v1" ||
		got.RejectionRate[0].Provider != "command" || got.RejectionRate[0].Attempts != 5 ||
		math.Abs(got.RejectionRate[0].Rate-0.6) > 1e-9 {
		t.Errorf("rejection rate %+v, want invoice-summary-v1/command 3 of 5", got.RejectionRate)
	}
	// Runs saw 3 + 3 + 4 files; b.txt's committed event, which would wait
	// since t0, is held for review (no total), not pending.
	if got.DocumentsSeen != 10 || got.OldestPendingSeconds != 0 {
		t.Errorf("documents seen %d, oldest pending %vs", got.DocumentsSeen, got.OldestPendingSeconds)
	}
}

// The human table and the Prometheus text of the same batch, on a fixed
// clock.
func TestStatsGolden(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.mixed()
	r := e.must(0, "stats")
	checkGolden(t, "ops-stats-table.golden", r.stdout)
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
	r = e.must(0, "stats", "--format", "prom")
	checkGolden(t, "ops-stats-prom.golden", r.stdout)
	checkPromText(t, r.stdout)
}

// promSample is one parsed sample line.
type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	promNameRE  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	promLabelRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	jobKeyRE    = regexp.MustCompile(`[0-9a-f]{12,}`)
)

// checkPromText is a small exposition-format parser: every line is a HELP,
// a TYPE or a sample `name{labels} value`; a family's HELP and TYPE come
// once, before its samples, which are contiguous; counters end in _total;
// no label holds a job key or a path. It returns the samples.
func checkPromText(t *testing.T, text string) []promSample {
	t.Helper()
	if text == "" || !strings.HasSuffix(text, "\n") {
		t.Fatalf("exposition text must end with a newline:\n%q", text)
	}
	types := map[string]string{}
	helps := map[string]bool{}
	done := map[string]bool{} // families whose samples are over
	current := ""
	var samples []promSample
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(format string, a ...any) { t.Errorf("line %d %q: %s", n, line, fmt.Sprintf(format, a...)) }
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kind, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			if !promNameRE.MatchString(name) {
				fail("bad metric name")
			}
			switch kind {
			case "HELP":
				if helps[name] || types[name] != "" {
					fail("HELP twice, or after TYPE")
				}
				helps[name] = true
			case "TYPE":
				if types[name] != "" {
					fail("TYPE twice")
				}
				switch arg {
				case "counter", "gauge":
				default:
					fail("type %q", arg)
				}
				if arg == "counter" && !strings.HasSuffix(name, "_total") {
					fail("a counter's name must end in _total")
				}
				types[name] = arg
			default:
				fail("unknown comment")
			}
			if current != "" && current != name {
				done[current] = true
			}
			current = name
			continue
		}
		s, err := parsePromSample(line)
		if err != nil {
			fail("%v", err)
			continue
		}
		if types[s.name] == "" || !helps[s.name] {
			fail("sample before its HELP and TYPE")
		}
		if done[s.name] || (current != "" && current != s.name) {
			fail("samples of %s are not contiguous", s.name)
		}
		current = s.name
		if s.labels["tenant"] == "" {
			fail("no tenant label")
		}
		for k, v := range s.labels {
			if !promLabelRE.MatchString(k) || strings.HasPrefix(k, "__") {
				fail("bad label name %q", k)
			}
			if jobKeyRE.MatchString(v) || strings.ContainsAny(v, `/\`) || strings.Contains(v, ".txt") {
				fail("label %s=%q looks like a job key or a path", k, v)
			}
		}
		samples = append(samples, s)
	}
	if len(samples) == 0 {
		t.Errorf("no samples")
	}
	return samples
}

// parsePromSample reads `name{a="x",b="y"} value`.
func parsePromSample(line string) (promSample, error) {
	s := promSample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("no value")
	}
	s.name = line[:i]
	if !promNameRE.MatchString(s.name) {
		return s, fmt.Errorf("bad name %q", s.name)
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		rest = rest[1:]
		for !strings.HasPrefix(rest, "}") {
			eq := strings.Index(rest, `="`)
			if eq <= 0 {
				return s, fmt.Errorf("bad label at %q", rest)
			}
			name := rest[:eq]
			rest = rest[eq+2:]
			var v strings.Builder
			for {
				if rest == "" {
					return s, fmt.Errorf("unterminated label value")
				}
				c := rest[0]
				rest = rest[1:]
				if c == '"' {
					break
				}
				if c == '\\' {
					if rest == "" {
						return s, fmt.Errorf("bad escape")
					}
					switch rest[0] {
					case '\\', '"':
						v.WriteByte(rest[0])
					case 'n':
						v.WriteByte('\n')
					default:
						return s, fmt.Errorf("bad escape \\%c", rest[0])
					}
					rest = rest[1:]
					continue
				}
				if c == '\n' {
					return s, fmt.Errorf("raw newline in a label value")
				}
				v.WriteByte(c)
			}
			if _, dup := s.labels[name]; dup {
				return s, fmt.Errorf("label %s twice", name)
			}
			s.labels[name] = v.String()
			rest = strings.TrimPrefix(rest, ",")
		}
		rest = rest[1:]
	}
	val, ok := strings.CutPrefix(rest, " ")
	if !ok || strings.Contains(val, " ") {
		return s, fmt.Errorf("want one space and a value, got %q", rest)
	}
	switch val {
	case "+Inf", "-Inf", "NaN":
		return s, nil
	}
	f, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return s, fmt.Errorf("value %q: %v", val, err)
	}
	s.value = f
	return s, nil
}

func TestPromParserRejectsBadText(t *testing.T) {
	t.Parallel()
	for _, line := range []string{`x{a="b} 1`, `x{a="b"}1`, `x 1 2`, `x{a="\q"} 1`, `9x 1`, `x{a=b} 1`} {
		if _, err := parsePromSample(line); err == nil {
			t.Errorf("parsePromSample(%q) accepted it", line)
		}
	}
	s, err := parsePromSample(`invx_x_total{tenant="a",model="q\"\\\n"} 1.5`)
	if err != nil || s.labels["model"] != "q\"\\\n" || s.value != 1.5 {
		t.Errorf("parsePromSample = %+v, %v", s, err)
	}
}

// fakeOpenAIUsage answers every chat completion with a valid document and
// the given usage, as model gpt-4.1-mini.
func fakeOpenAIUsage(t *testing.T, in, out int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		content, _ := json.Marshal(answer("Token Ltd", "T-1"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1-mini",
			"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, content, in, out, in+out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// invxEnv is e.invx with environment variables.
func (e *opsEnv) invxEnv(env map[string]string, args ...string) result {
	e.t.Helper()
	var out, errOut bytes.Buffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(k string) string { return env[k] }, Now: e.clock}
	code := cmd.MainWith(context.Background(), f, append([]string{"--db", e.db}, args...))
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// Tokens are summed by provider and model and priced with --price; usage
// without a price is named as unpriced.
func TestStatsTokensAndCost(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	srv := fakeOpenAIUsage(t, 1200, 300)
	r := e.invxEnv(map[string]string{"OPENAI_API_KEY": "sk-test"}, "run", "--quiet", "--schema", "invoice-summary-v1", "--provider", "openai",
		"--model", "gpt-4.1-mini", "--base-url", srv.URL+"/v1", e.in)
	// Every document gets the same answer without a total: committed for
	// review (exit 3).
	if r.code != cmd.ExitNeedsReview {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	s := parseStats(t, e.must(0, "stats", "--json", "--price", "openai:gpt-4.1-mini=0.40/1.60"))
	got := s.Tenants[0]
	wantCost := 2 * (1200*0.40 + 300*1.60) / 1e6
	if got.InputTokens != 2400 || got.OutputTokens != 600 || len(got.Tokens) != 1 || got.Tokens[0].Model != "gpt-4.1-mini" ||
		got.EstimatedCost == nil || math.Abs(*got.EstimatedCost-wantCost) > 1e-12 || len(got.Unpriced) != 0 {
		t.Errorf("tokens %d/%d %+v cost %v unpriced %v, want 2400/600 cost %v", got.InputTokens, got.OutputTokens, got.Tokens,
			got.EstimatedCost, got.Unpriced, wantCost)
	}

	s = parseStats(t, e.must(0, "stats", "--json", "--price", "openai:gpt-4o=2.5/10"))
	if got := s.Tenants[0]; got.EstimatedCost != nil || cmp.Diff([]string{"openai:gpt-4.1-mini"}, got.Unpriced) != "" {
		t.Errorf("with another model priced: cost %v unpriced %v", got.EstimatedCost, got.Unpriced)
	}
	r = e.must(0, "stats")
	for _, want := range []string{`tokens in / out +2400 / 600\n`, `openai:gpt-4.1-mini +2 attempts, 2400 / 600 tokens, unpriced\n`,
		`estimated cost +- \(unpriced: openai:gpt-4.1-mini; add --price`} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("stats table lacks %q:\n%s", want, r.stdout)
		}
	}
	r = e.must(0, "stats", "--format", "prom", "--price", "openai:gpt-4.1-mini=0.40/1.60")
	var sawCost, sawTokens bool
	for _, s := range checkPromText(t, r.stdout) {
		switch s.name {
		case "invx_store_estimated_cost":
			sawCost = math.Abs(s.value-wantCost) < 1e-12
		case "invx_store_input_tokens_total":
			sawTokens = s.value == 2400 && s.labels["provider"] == "openai" && s.labels["model"] == "gpt-4.1-mini"
		}
	}
	if !sawCost || !sawTokens {
		t.Errorf("prom text lacks the cost or the tokens:\n%s", r.stdout)
	}
}

// --since narrows attempts and commits to the window; the outbox and queue
// figures stay current. --all-tenants gives a block per tenant.
func TestStatsSinceAndTenants(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	e.advance(2 * time.Hour)
	e.must(0, "--tenant", "globex", "run", "--quiet", e.in)
	e.advance(time.Hour)

	s := parseStats(t, e.must(0, "stats", "--json", "--since", "90m"))
	if got := s.Tenants[0]; got.Attempts != 0 || got.Committed != 0 || got.OutboxPending != 3 {
		t.Errorf("default since 90m: attempts %d committed %d pending %d, want 0 0 3", got.Attempts, got.Committed, got.OutboxPending)
	}
	if want := rfc3339(t0.Add(90 * time.Minute)); s.Since != want {
		t.Errorf("since %q, want %q", s.Since, want)
	}
	s = parseStats(t, e.must(0, "stats", "--json", "--all-tenants", "--since", "90m"))
	var names []string
	for _, tn := range s.Tenants {
		names = append(names, tn.Tenant)
	}
	if diff := cmp.Diff([]string{"default", "globex"}, names); diff != "" {
		t.Fatalf("tenants (-want +got):\n%s", diff)
	}
	if g := s.Tenants[1]; g.Attempts != 2 || g.Committed != 2 || g.OutboxPending != 3 {
		t.Errorf("globex: attempts %d committed %d pending %d, want 2 2 3", g.Attempts, g.Committed, g.OutboxPending)
	}
	r := e.must(0, "stats", "--all-tenants")
	if !strings.Contains(r.stdout, "tenant default (all time)\n") || !strings.Contains(r.stdout, "\ntenant globex (all time)\n") {
		t.Errorf("table:\n%s", r.stdout)
	}
	prom := e.must(0, "stats", "--all-tenants", "--format", "prom").stdout
	samples := checkPromText(t, prom)
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.labels["tenant"]] = true
	}
	if !seen["default"] || !seen["globex"] || strings.Count(prom, "# TYPE invx_store_commits_total ") != 1 {
		t.Errorf("prom text for two tenants:\n%s", prom)
	}

	// A tenant with nothing yet has zero figures, not an error.
	s = parseStats(t, e.must(0, "--tenant", "initech", "stats", "--json"))
	if len(s.Tenants) != 1 || s.Tenants[0].Tenant != "initech" || s.Tenants[0].Attempts != 0 {
		t.Errorf("empty tenant: %+v", s.Tenants)
	}
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestStatsUsage(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	e.must(0, "run", "--quiet", e.in)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--format", "prom"}, "--json and --format prom exclude each other"},
		{[]string{"--format", "xml"}, `--format "xml": want table, json or prom`},
		{[]string{"--since", "yesterday"}, `--since "yesterday"`},
		{[]string{"--price", "openai=1/2"}, `want PROVIDER:MODEL=IN/OUT`},
		{[]string{"--price", "openai:gpt-4o=1"}, `want IN/OUT after =`},
		{[]string{"--price", "openai:gpt-4o=-1/2"}, `"-1" is not a price`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		r := e.invx(false, append([]string{"stats"}, tc.args...)...)
		if r.code != cmd.ExitUsage || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "Try: ") {
			t.Errorf("stats %v: exit %d, stderr %q; want exit 2 with %q and a Try line", tc.args, r.code, r.stderr, tc.want)
		}
	}
	// A model name may hold colons.
	r := e.invx(false, "stats", "--price", "ollama:llama3.1:8b=0/0")
	if r.code != 0 {
		t.Errorf("ollama price: exit %d %s", r.code, r.stderr)
	}
}

// Per tenant and currency: how many committed invoices and what their
// totals sum to. A result superseded by an accepted change is left out;
// tenants are summed apart.
func TestStatsInvoiceTotals(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	for _, n := range []string{"copy-of-a.txt", "bad.txt", "notes.md", ".hidden.txt"} {
		if err := os.Remove(filepath.Join(e.in, n)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"en_jp_jpy_consumption_tax.txt", "en_bh_bhd_three_decimals.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "invoices", n))
		if err != nil {
			t.Fatal(err)
		}
		e.write(n, string(b))
	}
	e.write("c.txt", "INVOICE\nInvoice C-1\nSupplier: Chandlery Ltd\nDate: 2026-03-01\nTotal: 100.01 GBP\n")
	e.must(0, "run", "--quiet", e.in)
	e.must(0, "--tenant", "acme", "run", "--quiet", filepath.Join(e.in, "a.txt"))
	// b.txt changes: held, then accepted; its first result is superseded.
	b, err := os.ReadFile(filepath.Join(e.in, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("b.txt", strings.Replace(string(b), "RE-2026-00417", "RE-2026-00418", 1))
	e.must(cmd.ExitNeedsReview, "run", "--quiet", e.in)
	var items []struct {
		JobKey string `json:"job_key"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "jobs", "--state", "held", "--json").stdout), &items); err != nil || len(items) != 1 {
		t.Fatalf("held jobs: %v %v", items, err)
	}
	e.must(0, "review", "accept", "--quiet", items[0].JobKey)

	r := e.must(0, "stats", "--all-tenants")
	checkGolden(t, "ops-stats-invoice-totals.golden", r.stdout)

	var rep struct {
		Tenants []struct {
			Tenant        string `json:"tenant"`
			InvoiceTotals []struct {
				Currency     string `json:"currency"`
				Invoices     int    `json:"invoices"`
				WithoutTotal int    `json:"without_total"`
				TotalMinor   int64  `json:"total_minor"`
				Total        string `json:"total"`
			} `json:"invoice_totals"`
		} `json:"tenants"`
	}
	if err := json.Unmarshal([]byte(e.must(0, "stats", "--all-tenants", "--json").stdout), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tn := range rep.Tenants {
		for _, ct := range tn.InvoiceTotals {
			got[tn.Tenant+"/"+ct.Currency] = fmt.Sprintf("%d %d %s", ct.Invoices, ct.TotalMinor, ct.Total)
		}
	}
	want := map[string]string{
		"acme/GBP":    "1 132000 1320.00",
		"default/GBP": "2 142001 1420.01",
		"default/EUR": "1 22898 228.98", // the superseded first b.txt is not counted
		"default/JPY": "1 534600 534600",
		"default/BHD": "1 2380125 2380.125",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("invoice totals (-want +got):\n%s", diff)
	}
}
