// Command invx turns a directory of supplier-invoice text into validated,
// exactly-once JSON records.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/internal/procgroup"
)

func main() {
	// First: the heap profiler's rate is the process's (cmd.HeapProfileRate).
	runtime.MemProfileRate = cmd.HeapProfileRate(os.Args[1:], os.Getenv("GODEBUG"), runtime.MemProfileRate)
	ctx, cancel := context.WithCancel(context.Background())
	// SIGTERM (cron, systemd, docker stop) is treated exactly like Ctrl-C.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks for a clean stop in whatever phase the
		// command is: discovery and enqueue stop between two files (a batch
		// not yet written is dropped whole), no new work is claimed, and
		// what is in flight finishes or gives its lease back. The second
		// one means the user will not wait.
		s := <-sigs
		fmt.Fprintf(os.Stderr, "invx: %v: stopping after the work in flight; signal again to quit at once\n", s)
		cancel()
		<-sigs
		// Child programs run in process groups of their own, which the
		// signal did not reach: end them rather than leave them running.
		procgroup.KillAll()
		os.Exit(cmd.ExitInterrupted)
	}()
	code := cmd.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel()
	// A command returns after waiting for its calls, so this finds nothing
	// unless one was still starting: no child program outlives invx.
	procgroup.KillAll()
	os.Exit(code)
}
