//go:build unix

package command_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/command"
	"github.com/invx/invx/extract/extracttest"
	"github.com/invx/invx/internal/deadlinetest"
)

// badAnswer is ValidAnswer without its title.
var badAnswer = strings.Replace(extracttest.ValidAnswer, `"title":"Invoice AT-2026-0042 from Acme Tools Ltd",`, "", 1)

// setup makes a folder holding the prepared answers and returns it.
func setup(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "answer.json"), extracttest.ValidAnswer, 0o644)
	write(t, filepath.Join(dir, "bad.json"), badAnswer, 0o644)
	return dir
}

func write(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// script writes an executable /bin/sh script into dir. $T is dir, and
// "count" increments a counter file and sets $n to the call number.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	prelude := "#!/bin/sh\nT=" + shellQuote(dir) + "\n" +
		`count() { n=$(cat "$T/count" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$T/count"; }` + "\n"
	write(t, path, prelude+body, 0o755)
	return path
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// attempt is the part of an attempt row these tests compare.
type attempt struct {
	No                         int
	Outcome, Class, Cat, Model string
}

func attempts(t *testing.T, env *extracttest.Env) []attempt {
	t.Helper()
	var out []attempt
	for _, a := range env.Attempts(t) {
		out = append(out, attempt{a.No, a.Outcome, a.Class, a.Category, a.Model})
	}
	return out
}

// gone reports whether pid no longer runs (a zombie waiting for a parent
// that does not reap it counts as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// pid (comm) STATE ...
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

// forever is how long the scripts' processes sleep: longer than any test
// deadline, so one that was not killed is still there when waitGone looks.
const forever = "100000"

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	// The test's own deadline, not a fixed budget: a loaded machine may be
	// slow to reap, and a process that was not killed sleeps far longer.
	deadline := time.Now().Add(deadlinetest.Timeout(t))
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) still runs after the call", what, pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func pidFrom(t *testing.T, path string) int {
	t.Helper()
	pid, ok := readPid(path)
	if !ok {
		t.Fatalf("%s: no complete pid line in %q", path, read(t, path))
	}
	return pid
}

// readPid reads a pid file a script writes with echo: the shell creates
// the file before it writes the line, so an empty or unterminated file is
// not a pid yet.
func readPid(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

// waitPid waits until path holds a complete pid line and returns the pid.
func waitPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(deadlinetest.Timeout(t))
	for {
		if pid, ok := readPid(path); ok {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no complete pid line before the test's deadline", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// firstCallTimesOut runs the program with a short timeout on attempt 1
// and with one only the test's deadline bounds on later attempts, so the
// kill of attempt 1 is certain and the answer of attempt 2 races no
// clock. If the short timeout fired before the program got as far as
// ready checks (a loaded machine can be that slow to start sh), attempt 1
// runs again with twice the timeout, unseen by the runner, until it did.
type firstCallTimesOut struct {
	cfg    command.Config
	budget time.Duration
	reset  func()
	ready  func() bool
}

func (*firstCallTimesOut) Name() string { return "command" }

func (p *firstCallTimesOut) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	cfg := p.cfg
	if req.Attempt > 1 {
		cfg.Timeout = p.budget
		return newThenExtract(ctx, cfg, req)
	}
	deadline := time.Now().Add(p.budget)
	for timeout := 100 * time.Millisecond; ; timeout *= 2 {
		p.reset()
		cfg.Timeout = timeout
		resp, err := newThenExtract(ctx, cfg, req)
		if p.ready() || time.Now().After(deadline) {
			return resp, err
		}
	}
}

func newThenExtract(ctx context.Context, cfg command.Config, req *extract.Request) (*extract.Response, error) {
	p, err := command.New(cfg)
	if err != nil {
		return nil, err
	}
	return p.Extract(ctx, req)
}

func TestPipeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		cfg      func(cfg *command.Config)
		provider func(t *testing.T, cfg command.Config, dir string) extract.Provider
		repair   int
		states   []string
		attempts []attempt
		results  int
		check    func(t *testing.T, dir string, env *extracttest.Env, keys []string)
	}{
		{
			name: "valid answer",
			body: `cat > "$T/stdin.txt"
env | grep -E '^INVX_(ATTEMPT|FEEDBACK|JOB_KEY|SCHEMA_VERSION|TENANT)=' | sort > "$T/env.txt"
echo "$EXTRA" > "$T/extra.txt"
cat "$T/answer.json"
`,
			cfg:      func(cfg *command.Config) { cfg.Env = []string{"EXTRA=from config"} },
			states:   []string{"succeeded"},
			attempts: []attempt{{1, "succeeded", "", "", "extract.sh"}},
			results:  1,
			check: func(t *testing.T, dir string, _ *extracttest.Env, keys []string) {
				if got := read(t, filepath.Join(dir, "stdin.txt")); got != extracttest.Invoice {
					t.Errorf("stdin = %q, want the normalised document", got)
				}
				want := "INVX_ATTEMPT=1\nINVX_FEEDBACK=\nINVX_JOB_KEY=" + keys[0] +
					"\nINVX_SCHEMA_VERSION=invoice-summary-v1\nINVX_TENANT=default\n"
				if diff := cmp.Diff(want, read(t, filepath.Join(dir, "env.txt"))); diff != "" {
					t.Errorf("environment (-want +got):\n%s", diff)
				}
				if got := read(t, filepath.Join(dir, "extra.txt")); got != "from config\n" {
					t.Errorf("Config.Env not passed: EXTRA = %q", got)
				}
			},
		},
		{
			name: "exit 75 then success",
			body: `count
if [ "$n" -eq 1 ]; then echo "model server warming up" >&2; exit 75; fi
cat "$T/answer.json"
`,
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "retry", "transient", "tempfail", ""},
				{2, "succeeded", "", "", "extract.sh"},
			},
			results: 1,
			check: func(t *testing.T, _ string, env *extracttest.Env, _ []string) {
				if msg := env.Attempts(t)[0].Message; !strings.Contains(msg, "status 75") || !strings.Contains(msg, "warming up") {
					t.Errorf("message = %q", msg)
				}
			},
		},
		{
			name: "exit 2 fails with stderr",
			body: `printf 'line one\033[31m red\n\n\tline two\n' >&2
i=0; while [ $i -lt 100 ]; do printf 'padding ' >&2; i=$((i+1)); done
exit 2
`,
			states:   []string{"failed"},
			attempts: []attempt{{1, "failed", "permanent", "exit", ""}},
			check: func(t *testing.T, _ string, env *extracttest.Env, _ []string) {
				msg := env.Attempts(t)[0].Message
				if !strings.HasPrefix(msg, "permanent: extract.sh exited with status 2: line one[31m red | line two | padding") {
					t.Errorf("message = %q", msg)
				}
				if len(msg) > 500 || strings.ContainsAny(msg, "\x1b\n") {
					t.Errorf("message is not one capped printable line: %d bytes %q", len(msg), msg)
				}
			},
		},
		{
			name: "timeout kills the process group",
			body: `if [ "$INVX_ATTEMPT" -eq 1 ]; then
	echo $$ > "$T/pid"
	sleep ` + forever + ` &
	echo $! > "$T/child"
	wait
fi
cat "$T/answer.json"
`,
			provider: func(t *testing.T, cfg command.Config, dir string) extract.Provider {
				pid, child := filepath.Join(dir, "pid"), filepath.Join(dir, "child")
				return &firstCallTimesOut{cfg: cfg, budget: deadlinetest.Timeout(t),
					reset: func() { os.Remove(pid); os.Remove(child) },
					ready: func() bool {
						_, ok1 := readPid(pid)
						_, ok2 := readPid(child)
						return ok1 && ok2
					}}
			},
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "retry", "transient", "timeout", ""},
				{2, "succeeded", "", "", "extract.sh"},
			},
			results: 1,
			check: func(t *testing.T, dir string, _ *extracttest.Env, _ []string) {
				waitGone(t, "the script", pidFrom(t, filepath.Join(dir, "pid")))
				waitGone(t, "the script's child", pidFrom(t, filepath.Join(dir, "child")))
			},
		},
		{
			name:   "output over the limit",
			body:   "while :; do echo 0123456789abcdef; done\n",
			cfg:    func(cfg *command.Config) { cfg.MaxOutput = 64; cfg.Timeout = time.Minute },
			states: []string{"rejected"},
			attempts: []attempt{
				{1, "rejected", "rejected", "decode", "extract.sh"},
				{2, "rejected", "rejected", "decode", "extract.sh"},
			},
			check: func(t *testing.T, _ string, env *extracttest.Env, _ []string) {
				if msg := env.Attempts(t)[1].Message; !strings.Contains(msg, "output over 64 bytes") {
					t.Errorf("message = %q", msg)
				}
			},
		},
		{
			name: "dropped field repaired with feedback",
			body: `if [ -n "$INVX_FEEDBACK" ]; then
	printf '%s|%s' "$INVX_ATTEMPT" "$INVX_FEEDBACK" > "$T/feedback"
	cat "$T/answer.json"
else
	cat "$T/bad.json"
fi
`,
			states: []string{"succeeded"},
			attempts: []attempt{
				{1, "rejected", "rejected", "display", "extract.sh"},
				{2, "succeeded", "", "", "extract.sh"},
			},
			results: 1,
			check: func(t *testing.T, dir string, _ *extracttest.Env, _ []string) {
				if got := read(t, filepath.Join(dir, "feedback")); !strings.HasPrefix(got, "2|display: title: ") {
					t.Errorf("INVX_ATTEMPT|INVX_FEEDBACK = %q", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := setup(t)
			cfg := command.Config{Argv: []string{script(t, dir, "extract.sh", tt.body)}, Timeout: time.Minute}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			var p extract.Provider
			if tt.provider != nil {
				p = tt.provider(t, cfg, dir)
			} else {
				cp, err := command.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				p = cp
			}
			env := extracttest.New(t)
			r := env.Runner(p)
			extracttest.NewFakeClock(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)).Use(r)
			// No clock here: a call that waited for a child outliving it
			// would sleep past the test's deadline, which then names it.
			if _, err := env.Run(t, r, extracttest.Doc("acme.txt", extracttest.Invoice)); err != nil {
				t.Fatalf("Work: %v", err)
			}
			if diff := cmp.Diff(tt.states, env.JobStates(t)); diff != "" {
				t.Errorf("job states (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.attempts, attempts(t, env)); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if got := env.Results(t); got != tt.results {
				t.Errorf("results = %d, want %d", got, tt.results)
			}
			if tt.check != nil {
				tt.check(t, dir, env, r.Keys())
			}
		})
	}
}

func request() *extract.Request {
	return &extract.Request{Tenant: "default", JobKey: "k", Attempt: 1, Text: extracttest.Invoice, Schema: extracttest.V1()}
}

// TestExtractErrors calls Extract directly for the failures the pipeline
// tests do not reach.
func TestExtractErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prog   func(t *testing.T, dir string) string
		remove bool // delete the program between New and Extract
		class  extract.Class
		cat    string
	}{
		{
			name:   "program removed after New",
			prog:   func(t *testing.T, dir string) string { return script(t, dir, "gone.sh", "exit 0\n") },
			remove: true,
			class:  extract.ClassPermanent, cat: "config",
		},
		{
			name: "not a program",
			prog: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "noshebang")
				write(t, p, "\x7fELF garbage", 0o755)
				return p
			},
			class: extract.ClassPermanent, cat: "config",
		},
		{
			name:  "killed by a signal",
			prog:  func(t *testing.T, dir string) string { return script(t, dir, "sig.sh", "kill -TERM $$\nsleep 5\n") },
			class: extract.ClassTransient, cat: "signal",
		},
		{
			name:  "killed from outside (SIGKILL)",
			prog:  func(t *testing.T, dir string) string { return script(t, dir, "kill.sh", "kill -KILL $$\nsleep 5\n") },
			class: extract.ClassTransient, cat: "signal",
		},
		{
			name:  "crashed (SIGSEGV)",
			prog:  func(t *testing.T, dir string) string { return script(t, dir, "segv.sh", "kill -SEGV $$\nsleep 5\n") },
			class: extract.ClassPermanent, cat: "crash",
		},
		{
			name:  "aborted (SIGABRT)",
			prog:  func(t *testing.T, dir string) string { return script(t, dir, "abrt.sh", "kill -ABRT $$\nsleep 5\n") },
			class: extract.ClassPermanent, cat: "crash",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := setup(t)
			prog := tt.prog(t, dir)
			p, err := command.New(command.Config{Argv: []string{prog}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.remove {
				if err := os.Remove(prog); err != nil {
					t.Fatal(err)
				}
			}
			_, err = p.Extract(context.Background(), request())
			var pe *extract.ProviderError
			if !errors.As(err, &pe) || pe.Class != tt.class || pe.Category != tt.cat {
				t.Fatalf("err = %v, want %s %q", err, tt.class, tt.cat)
			}
		})
	}
}

// TestInterrupted cancels the call once the program runs (its pid line
// is written, not merely its file created) and wants it interrupted and
// the program gone.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	dir := setup(t)
	p, err := command.New(command.Config{Argv: []string{script(t, dir, "slow.sh", `echo $$ > "$T/pid"; exec sleep `+forever)},
		Timeout: deadlinetest.Timeout(t)}) // the cancel, not a timeout, must end it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // also when waitPid fails: the program is killed
	done := make(chan error, 1)
	go func() {
		_, err := p.Extract(ctx, request())
		done <- err
	}()
	pid := waitPid(t, filepath.Join(dir, "pid"))
	cancel()
	select {
	case err = <-done:
	case <-time.After(deadlinetest.Timeout(t)):
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("Extract still runs after its context was cancelled")
	}
	if got := extract.Classify(err); got != extract.ClassInterrupted {
		t.Errorf("class = %s (%v), want interrupted", got, err)
	}
	waitGone(t, "the script", pid)
}

func TestNew(t *testing.T) {
	t.Parallel()
	dir := setup(t)
	ok := script(t, dir, "ok.sh", "exit 0\n")
	plain := filepath.Join(dir, "plain.sh")
	write(t, plain, "#!/bin/sh\n", 0o644)
	tests := []struct {
		name string
		cfg  command.Config
		want string
	}{
		{"no argv", command.Config{}, "--command is required"},
		{"missing file", command.Config{Argv: []string{filepath.Join(dir, "nope.sh")}}, "not found"},
		{"not in PATH", command.Config{Argv: []string{"invx-no-such-program"}}, "not found in PATH"},
		{"not executable", command.Config{Argv: []string{plain}}, "not executable"},
		{"a directory", command.Config{Argv: []string{dir}}, "is a directory"},
		{"bad dir", command.Config{Argv: []string{ok}, Dir: filepath.Join(dir, "nope")}, "does not exist"},
		{"bad env", command.Config{Argv: []string{ok}, Env: []string{"NOEQUALS"}}, "not KEY=value"},
		{"negative timeout", command.Config{Argv: []string{ok}, Timeout: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := command.New(tt.cfg)
			var pe *extract.ProviderError
			if !errors.As(err, &pe) || pe.Class != extract.ClassPermanent || pe.Category != "config" ||
				!strings.Contains(pe.Msg, tt.want) {
				t.Errorf("New = %v, want a config error containing %q", err, tt.want)
			}
		})
	}
	p, err := command.New(command.Config{Argv: []string{"sh", "-c", "cat"}})
	if err != nil || p.Name() != "command" {
		t.Fatalf("New(sh) = %v, %v", p, err)
	}
	// A relative program is found relative to Dir.
	if _, err := command.New(command.Config{Argv: []string{"./ok.sh"}, Dir: dir}); err != nil {
		t.Errorf("relative to Dir: %v", err)
	}
}
