package bench_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/invx/invx/bench/internal/synth"
	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/schema"
)

// The per-document CPU a run spends outside the store, part by part, one
// document per op (discovery: one walk of the folder per op, reported per
// document too): validation of the provider's answer, the replay
// provider's read and decode of a recording, and discovery's read,
// decoding, normalisation and hashing of a file. Compare with the store's
// share in a profile of `invx run --cpuprofile` (bench/README). Each also
// reports cpu-ns/op (or cpu-ns/doc), the process's CPU time per op, which
// a loaded machine disturbs far less than ns/op.

const docPathN = 500

// rulesAnswers returns n synthetic documents, normalised, and the rules
// provider's invoice-v2 answer to each: real answers, as a run validates
// them.
func rulesAnswers(b *testing.B, n int) (texts []string, answers [][]byte) {
	b.Helper()
	p := rules.New()
	for i := range n {
		text, err := extract.Normalize(synth.Doc(1, i))
		if err != nil {
			b.Fatal(err)
		}
		resp, err := p.Extract(b.Context(), &extract.Request{Tenant: "bench", JobKey: "k", Attempt: 1, Text: text, Schema: schema.Latest()})
		if err != nil {
			b.Fatal(err)
		}
		texts, answers = append(texts, text), append(answers, resp.Output)
	}
	return texts, answers
}

// BenchmarkValidateV2 is ValidateReviewable on the rules provider's answers.
func BenchmarkValidateV2(b *testing.B) {
	texts, answers := rulesAnswers(b, docPathN)
	v := schema.Latest()
	i := 0
	b.ReportAllocs()
	defer reportCPU(b, processCPU(), 1)
	for b.Loop() {
		if _, err := v.ValidateReviewable(answers[i%docPathN], texts[i%docPathN]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkReplayExtract is the replay provider answering from a recording
// of the rules provider (made by replay.Recorder, as `invx run --record`
// does).
func BenchmarkReplayExtract(b *testing.B) {
	texts, _ := rulesAnswers(b, docPathN)
	dir := b.TempDir()
	rec, err := replay.NewRecorder(rules.New(), dir)
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]*extract.Request, docPathN)
	for i, text := range texts {
		reqs[i] = &extract.Request{Tenant: "bench", JobKey: "job" + strconv.Itoa(i), Attempt: 1, Text: text, Schema: schema.Latest()}
		if _, err := rec.Extract(b.Context(), reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
	p, err := replay.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	defer reportCPU(b, processCPU(), 1)
	for b.Loop() {
		resp, err := p.Extract(ctx, reqs[i%docPathN])
		if err != nil || len(resp.Output) == 0 {
			b.Fatalf("replay: %v", err)
		}
		i++
	}
}

// BenchmarkDiscover walks a folder of synthetic documents, reading,
// decoding, normalising and hashing every file, as a first run does.
func BenchmarkDiscover(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "docs")
	if _, err := synth.Write(dir, docPathN, 1000, 1); err != nil {
		b.Fatal(err)
	}
	opts := extract.DiscoverOptions{MaxBytes: 1 << 20}
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, processCPU(), docPathN)
	for b.Loop() {
		n := 0
		err := extract.Discover(ctx, dir, opts, func(f extract.Found) error {
			if f.Digest == "" {
				b.Fatalf("%s: no digest", f.Path)
			}
			n++
			return nil
		}, func(s extract.Skipped) { b.Fatalf("%s skipped: %s", s.Path, s.Reason) })
		if err != nil || n != docPathN {
			b.Fatalf("discover: %v, %d documents, want %d", err, n, docPathN)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*docPathN), "ns/doc")
}

// reportCPU reports the CPU time since start per op, and per document when
// an op handles perOp of them.
func reportCPU(b *testing.B, start time.Duration, perOp int) {
	cpu := float64(processCPU() - start)
	if perOp == 1 {
		b.ReportMetric(cpu/float64(b.N), "cpu-ns/op")
		return
	}
	b.ReportMetric(cpu/float64(b.N*perOp), "cpu-ns/doc")
}
