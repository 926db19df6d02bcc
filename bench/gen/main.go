// Command gen writes deterministic synthetic supplier-invoice texts for the
// invx benchmark (bench/run.sh); see package synth for what they look like.
//
//	go run ./bench/gen -n 10000 -out /tmp/invx-bench/docs [-seed 1] [-per-dir 1000]
//
// Documents go into numbered subfolders of -per-dir files each (0000/,
// 0001/, …). The same flags always write the same bytes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/invx/invx/bench/internal/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10000, "number of documents")
	out := fs.String("out", "", "directory to write into (created if missing)")
	seed := fs.Uint64("seed", 1, "seed; the same seed writes the same documents")
	perDir := fs.Int("per-dir", 1000, "documents per subfolder")
	quiet := fs.Bool("q", false, "no closing line on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench/gen -n 10000 -out DIR [-seed 1] [-per-dir 1000]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || *n < 1 || *perDir < 1 || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	start := time.Now()
	bytes, err := synth.Write(*out, *n, *perDir, *seed)
	if err != nil {
		fmt.Fprintln(stderr, "gen: "+err.Error())
		return 1
	}
	if !*quiet {
		fmt.Fprintf(stderr, "gen: wrote %d documents (%.1f MiB, %.0f B average) to %s in %s\n",
			*n, float64(bytes)/(1<<20), float64(bytes)/float64(*n), *out, time.Since(start).Round(time.Millisecond))
	}
	return 0
}
