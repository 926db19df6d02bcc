// Command invx turns a directory of supplier-invoice text into validated,
// exactly-once JSON records.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/invx/invx/cmd"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks for a clean stop: no new work is claimed and
		// what is in flight finishes or gives its lease back. The second one
		// means the user will not wait.
		<-sigs
		cancel()
		<-sigs
		os.Exit(cmd.ExitInterrupted)
	}()
	code := cmd.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}
