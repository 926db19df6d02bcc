package bench_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/invx/invx/bench/internal/synth"
	"github.com/invx/invx/cmd"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/schema"
)

// BenchmarkRun1000 runs `invx run --quiet --json` in process over 1000
// synthetic documents into a fresh database per iteration, so every
// iteration extracts, validates and commits all of them. It reports docs/s.
// One iteration takes seconds; profile it with
//
//	go test -run '^$' -bench Run1000 -benchtime 1x -cpuprofile cpu.prof ./bench
func BenchmarkRun1000(b *testing.B) {
	const n = 1000
	dir := filepath.Join(b.TempDir(), "docs")
	if _, err := synth.Write(dir, n, 1000, 1); err != nil {
		b.Fatal(err)
	}
	dbDir := b.TempDir()
	ctx := b.Context()
	iter := 0
	for b.Loop() {
		iter++
		db := filepath.Join(dbDir, "bench-"+strconv.Itoa(iter)+".db")
		var out, errOut bytes.Buffer
		code := cmd.Main(ctx, []string{"run", "--quiet", "--json", "--db", db, dir}, strings.NewReader(""), &out, &errOut)
		if code != 0 && code != cmd.ExitNeedsReview {
			b.Fatalf("invx run: exit %d\nstderr:\n%s", code, errOut.String())
		}
		var sum struct {
			FilesSeen int `json:"files_seen"`
			Committed int `json:"committed"`
			Attempts  int `json:"attempts"`
		}
		if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
			b.Fatalf("decode summary: %v\n%s", err, out.String())
		}
		if sum.FilesSeen != n || sum.Attempts < n {
			b.Fatalf("summary: files_seen %d, attempts %d: want %d each", sum.FilesSeen, sum.Attempts, n)
		}
	}
	b.ReportMetric(float64(n*iter)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkRulesExtract is the rules provider alone (no files, no store,
// no validation) over the same kind of documents, one document per op:
// compare its ns/op with BenchmarkRun1000's per-document time to see how
// much of a run is extraction.
func BenchmarkRulesExtract(b *testing.B) {
	// v1 was the first schema; v2 is the default one now, so both are timed.
	for _, name := range []string{schema.V1, schema.V2} {
		b.Run(name, func(b *testing.B) { benchRulesExtract(b, name) })
	}
}

func benchRulesExtract(b *testing.B, schemaName string) {
	b.Helper()
	const n = 200
	texts := make([]string, n)
	for i := range texts {
		t, err := extract.Normalize(synth.Doc(1, i))
		if err != nil {
			b.Fatal(err)
		}
		texts[i] = t
	}
	v, err := schema.Lookup(schemaName)
	if err != nil {
		b.Fatal(err)
	}
	p := rules.New()
	ctx := b.Context()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Extract(ctx, &extract.Request{Tenant: "bench", JobKey: "k", Attempt: 1, Text: texts[i%n], Schema: v}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "docs/s")
}
