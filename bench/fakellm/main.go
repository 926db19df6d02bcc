// Command fakellm is a loopback OpenAI-compatible Chat Completions server
// for bench/run.sh: it answers every POST /v1/chat/completions after a fixed
// latency with a valid answer for the document in the request, so invx's
// openai provider can be measured at high concurrency without a model.
//
//	go run ./bench/fakellm [-addr 127.0.0.1:0] [-latency 200ms]
//	    [-answers RECORDING] [-tenant default] [-addr-file FILE]
//
// The answer is what invx's own rules extractor writes for the document
// text found between the schema's markers in the user message, for the
// schema version named by the request's response_format, so it passes
// invx's validation (evidence is an exact substring of the source). With
// -answers, answers are first looked up in a replay recording of a rules
// run (invx run --record DIR) by job key, so the fake spends almost no
// CPU on the 2-core bench machine where it shares the cores with invx; a
// document not in the recording is extracted on the spot.
//
// Once it listens, it writes its base URL ("http://127.0.0.1:PORT/v1") to
// stdout, or to FILE with -addr-file (written atomically, so a script can
// wait for the file to appear). It stops on SIGINT or SIGTERM and then says
// on stderr how many answers came from the recording and how many from the
// rules, and over how many TCP connections.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0: any free port)")
	latency := fs.Duration("latency", 200*time.Millisecond, "time from reading a request to sending its answer")
	answers := fs.String("answers", "", "replay recording of a rules run to take answers from (invx run --record DIR)")
	tenant := fs.String("tenant", "default", "tenant the recording's job keys were made for")
	addrFile := fs.String("addr-file", "", "write the base URL to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *latency < 0 {
		fmt.Fprintln(stderr, "usage: fakellm [-addr HOST:PORT] [-latency 200ms] [-answers DIR] [-tenant ID] [-addr-file FILE]")
		return 2
	}
	a, err := newAnswerer(*answers, *tenant)
	if err != nil {
		fmt.Fprintf(stderr, "fakellm: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakellm: listen: %v\n", err)
		return 1
	}
	base := "http://" + ln.Addr().String() + "/v1"
	fake := newServer(a, *latency)
	// Connections are counted because a client that does not keep them
	// alive pays a TCP handshake per call, which shows up as invx CPU.
	var conns atomic.Int64
	srv := &http.Server{Handler: fake.handler(), ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := announce(base, *addrFile, stdout); err != nil {
		fmt.Fprintf(stderr, "fakellm: %v\n", err)
		_ = ln.Close()
		return 1
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "fakellm: serve: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "fakellm: answered %d from the recording, %d by the rules, over %d connections\n",
		fake.fromRecording.Load(), fake.fromRules.Load(), conns.Load())
	fmt.Fprintf(stderr, "fakellm: %s\n", fake.occ.summary())
	return 0
}

// announce writes the base URL. A file is written under a temporary name and
// renamed, so whoever polls for it never reads half a URL.
func announce(base, file string, stdout io.Writer) error {
	if file == "" {
		_, err := fmt.Fprintln(stdout, base)
		return err
	}
	tmp := filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".tmp")
	if err := os.WriteFile(tmp, []byte(base+"\n"), 0o600); err != nil {
		return fmt.Errorf("write address file: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("write address file: %w", err)
	}
	return nil
}
