// Package bench holds invx's throughput benchmark: a generator of synthetic
// invoice texts (bench/gen), a wrapper that measures a command's wall time
// and peak RSS (bench/rss), the script that ties them to a built invx
// (bench/run.sh) and an in-process Go benchmark (BenchmarkRun1000). See
// bench/README.md. Nothing in the product imports it.
package bench
