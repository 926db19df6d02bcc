package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/invx/invx/review/desk"
)

// ReviewServeOptions are the flags of invx review serve.
type ReviewServeOptions struct {
	Addr        string
	AllowRemote bool
	Actor       string
}

func newCmdReviewServe(f *Factory, runF func(context.Context, *ReviewServeOptions) error) *cobra.Command {
	opts := &ReviewServeOptions{}
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080]",
		Short: "Serve the review desk: the queue and each document with its facts highlighted, in the browser",
		Long: `Serve runs the review desk, a small web app in the binary, until Ctrl-C
(exit 130, as any interrupted command).
It prints a URL carrying a random access token (like Jupyter): open it in a
browser on this machine. Requests without the token are refused (401); the
token is exchanged for a cookie on the first visit.

The queue lists what invx review lists, grouped by reason (possible
duplicate, incomplete, arithmetic, held, failed, rejected, skipped), with
counts, filters and pages. A document page shows the normalised text with
each fact's evidence highlighted (hover a fact), the facts with what is
wrong with them, the other document of a possible duplicate side by side,
the attempts and the corrections, and the actions accept, correct and
dismiss — the same calls as invx review accept, correct and dismiss,
recorded with --actor (default $USER). Keys: j/k move, Enter opens,
a/c/d go to accept, correct, dismiss.

It binds to loopback by default. Binding another address needs
--allow-remote and prints a warning: the desk shows invoice text to anyone
holding the URL, over plain HTTP.`,
		Example: `  invx review serve
  invx review serve --addr 127.0.0.1:9090 --actor ann
  invx --tenant acme review serve`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			host, _, err := net.SplitHostPort(opts.Addr)
			if err != nil {
				return &usageError{err: fmt.Errorf("review serve: --addr %q: %w", opts.Addr, err), try: "invx review serve --addr 127.0.0.1:8080"}
			}
			if !loopback(host) && !opts.AllowRemote {
				return &usageError{err: fmt.Errorf("review serve: --addr %s is not a loopback address: the desk shows invoice text; add --allow-remote to bind it anyway", opts.Addr),
					try: "invx review serve --addr 127.0.0.1:8080"}
			}
			if opts.Actor, err = reviewActor(f, "review serve", opts.Actor); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return reviewServeRun(c.Context(), f, opts)
		},
	}
	c.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	c.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow a non-loopback --addr")
	c.Flags().StringVar(&opts.Actor, "actor", "", "who acts in the desk, kept with every decision (default $USER)")
	return c
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func reviewServeRun(ctx context.Context, f *Factory, opts *ReviewServeOptions) error {
	st, err := f.OpenExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	d, err := desk.New(desk.Config{Store: st, Tenant: f.Tenant, Actor: opts.Actor, Now: f.Now, Log: f.Logger()})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("review serve: %w", err)
	}
	host, _, _ := net.SplitHostPort(opts.Addr)
	if !loopback(host) {
		fmt.Fprintf(f.IO.ErrOut, "invx: warning: the review desk listens on %s, beyond this machine, over plain HTTP: anyone with the URL sees invoice text\n", ln.Addr())
	}
	fmt.Fprintf(f.IO.Out, "http://%s/?token=%s\n", ln.Addr(), d.Token())
	fmt.Fprintf(f.IO.ErrOut, "review desk for tenant %s, acting as %s; Ctrl-C stops it\n", f.Tenant, opts.Actor)
	srv := &http.Server{Handler: d, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("review serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("review serve: %w", err)
	}
	return nil
}
