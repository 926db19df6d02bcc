// Command rss runs a command and reports its wall time, CPU time and peak
// resident set size, so bench/run.sh needs neither GNU time nor root.
//
//	go run ./bench/rss [-o FILE] -- CMD [ARG...]
//
// The command's stdin, stdout and stderr are passed through and rss exits
// with its exit code (128+n if a signal n killed it). The figures go to
// stderr, or to FILE with -o, as one line of key=value pairs:
//
//	rss: wall_s=12.345 user_s=20.100 sys_s=1.200 maxrss_mib=87.4 exit=0
//
// maxrss is the kernel's ru_maxrss for the waited-for child, i.e. the
// largest of the command and any of its descendants it waited for.
// maxanon and maxfile split it, sampled from /proc/PID/status every 20 ms
// (RssAnon, RssFile; 0 where there is no /proc): anonymous memory is what
// the program allocates, file-backed the pages of its binary the kernel
// mapped, which vary by 20 MB with how the binary sits in the page cache. SIGINT
// and SIGTERM are forwarded to the command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outFile := fs.String("o", "", "write the figures to this file instead of stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rss [-o FILE] -- CMD [ARG...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	argv := fs.Args()

	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	start := time.Now()
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "rss: start %s: %v\n", argv[0], err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = c.Process.Signal(s)
		}
	}()
	stopSampling := make(chan struct{})
	peaks := make(chan residentPeaks, 1)
	go func() { peaks <- sampleResident(c.Process.Pid, stopSampling) }()
	err := c.Wait()
	wall := time.Since(start)
	close(stopSampling)
	peak := <-peaks

	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	default:
		fmt.Fprintf(stderr, "rss: wait for %s: %v\n", argv[0], err)
		return 1
	}

	var maxrssMiB, user, sys float64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrssMiB = float64(ru.Maxrss) / 1024 // Linux and the BSDs report KiB
		if runtime.GOOS == "darwin" {
			maxrssMiB = float64(ru.Maxrss) / (1 << 20) // macOS reports bytes
		}
		user = time.Duration(ru.Utime.Nano()).Seconds()
		sys = time.Duration(ru.Stime.Nano()).Seconds()
	}
	line := fmt.Sprintf("rss: wall_s=%.3f user_s=%.3f sys_s=%.3f maxrss_mib=%.1f maxanon_mib=%.1f maxfile_mib=%.1f exit=%d\n",
		wall.Seconds(), user, sys, maxrssMiB, peak.anonKiB/1024, peak.fileKiB/1024, code)
	if *outFile != "" {
		if err := os.WriteFile(*outFile, []byte(line), 0o644); err != nil {
			fmt.Fprintf(stderr, "rss: write figures: %v\n", err)
			return 1
		}
	} else {
		fmt.Fprint(stderr, line)
	}
	return code
}
