package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/invx/invx/extract"
)

// Exit codes, documented in the README and by `invx help exit-codes`.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitNeedsReview = 3
	ExitProvider    = 4
	ExitInterrupted = 130
)

// errSilent ends a command with an exit code whose message was already
// printed.
var errSilent = errors.New("silent")

// usageError is a mistake in the command line: exit 2, with a hint.
type usageError struct {
	err error
	try string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// configError is a provider or store configuration the user must fix: exit 4.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

// needsReviewError: the command finished, but documents need a person.
type needsReviewError struct{ n int }

func (e *needsReviewError) Error() string {
	return fmt.Sprintf("%d document(s) need review", e.n)
}

// interruptedError: the user stopped the command.
type interruptedError struct{}

func (interruptedError) Error() string { return "interrupted" }

// exitCode maps a command's error to the process exit code. It is the only
// place that decides exit codes.
func exitCode(err error) int {
	var (
		ue *usageError
		ce *configError
		ne *needsReviewError
		ie interruptedError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ie), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case errors.As(err, &ce), errors.Is(err, extract.ErrAuth), errors.Is(err, extract.ErrQuota),
		errors.Is(err, extract.ErrUnreachable):
		return ExitProvider
	case errors.As(err, &ne):
		return ExitNeedsReview
	default:
		return ExitError
	}
}

func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "What invx's exit codes mean",
		Long: `invx exits with:

  0    done: every document is committed (or was already)
  1    runtime error (database, file system, unexpected failure); a
       database that stayed unreachable longer than --db-retry
  2    usage error: a flag, argument or tenant id is wrong
  3    finished, but documents need review: rejected, failed or held,
       or files skipped for their content, size or type (not regular,
       over --max-bytes, binary, not decodable, unreadable); invx review
       lists them all; invx run: a DIR with no file matching --include
       (unless --allow-empty); invx eval: a quality gate failed;
       invx outbox deliver: events parked or still pending
  4    provider authentication or configuration, or a provider that could
       not be reached --max-unreachable times in a row: nothing was marked
       failed, fix the setting named in the message (or start the server)
       and run again
  130  interrupted (Ctrl-C or SIGTERM); what was in flight finished or
       gave its lease back, a rerun carries on`,
	}
}

// noArgs rejects positional arguments as a usage error naming the command,
// with a hint.
func noArgs(name, hint, try string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return &usageError{err: fmt.Errorf("%s: unexpected argument %q%s", name, args[0], hint), try: try}
		}
		return nil
	}
}

// cobraUsage makes the usage errors cobra returns untyped (an unknown
// command of the root) usage errors: exit 2 with a Try line, like every
// other usage error. cobra offers no error type, so its message is matched.
func cobraUsage(err error) error {
	var ue *usageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return &usageError{err: err, try: "invx --help"}
	}
	return err
}

// withTry gives a usage error the Try line of the command that failed, so
// a hint shared by several commands (a missing --db) names the right one.
func withTry(err error, try string) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return &usageError{err: ue.err, try: try}
	}
	return err
}

// checkDBFolder reports a SQLite --db whose folder does not exist as a usage
// error naming the folder: SQLite itself would only say it cannot open the
// file.
func checkDBFolder(path string) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &usageError{err: fmt.Errorf("--db %s: folder %s does not exist", path, dir),
			try: "invx --db invx.db run DIR, with a --db in a folder that exists (or create " + dir + " first)"}
	}
	return nil
}

// tryFor is the Try: line of a usage error raised while running c: the
// error's own hint when it names c (global flags may come first: "invx
// --db PATH jobs"), else c's help. A hint shared by several commands must
// not send the user to another command than the one typed.
func tryFor(c *cobra.Command, try string) string {
	if c == nil || !c.HasParent() {
		return cmp.Or(try, "invx --help")
	}
	path := c.CommandPath()
	sub := strings.TrimPrefix(path, c.Root().Name()+" ")
	words := strings.FieldsFunc(try, func(r rune) bool { return r == ' ' || r == ',' })
	if strings.HasPrefix(try, c.Root().Name()+" ") && containsRun(words, strings.Fields(sub)) {
		return try
	}
	return path + " --help"
}

// containsRun reports whether want appears in words as consecutive words.
func containsRun(words, want []string) bool {
	for i := 0; i+len(want) <= len(words); i++ {
		if slices.Equal(words[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
