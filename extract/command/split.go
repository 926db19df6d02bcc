package command

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a --command string into argv the way a POSIX shell
// splits words, without running a shell: blanks separate words; '...'
// keeps everything literally; "..." keeps everything but a backslash before
// " \ $ ` or a newline; outside quotes a backslash keeps the next
// character literally and a backslash-newline is removed. Adjacent quoted
// and unquoted parts join into one word, and empty quotes make an empty word.
//
// Because no shell runs, unquoted shell syntax (| & ; < > ( ) $ `) is an
// error rather than a literal argument: write a script, or use sh -c '...'.
// A string with no words is an error too.
func SplitCommand(s string) ([]string, error) {
	var (
		args  []string
		word  strings.Builder
		inArg bool // a word has started, perhaps an empty quoted one
	)
	flush := func() {
		if inArg {
			args = append(args, word.String())
		}
		word.Reset()
		inArg = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("command ends with a lone backslash")
			}
			i++
			if s[i] != '\n' {
				word.WriteByte(s[i])
				inArg = true
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' quote starting at byte %d", i)
			}
			word.WriteString(s[i+1 : i+1+end])
			inArg = true
			i += end + 1
		case c == '"':
			start := i
			closed := false
			for i++; i < len(s); i++ {
				switch d := s[i]; {
				case d == '"':
					closed = true
				case d == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
					i++
					if s[i] != '\n' {
						word.WriteByte(s[i])
					}
					continue
				default:
					word.WriteByte(d)
					continue
				}
				break
			}
			if !closed {
				return nil, fmt.Errorf(`unterminated " quote starting at byte %d`, start)
			}
			inArg = true
		case strings.IndexByte("|&;<>()$`", c) >= 0:
			return nil, fmt.Errorf("unquoted %q at byte %d: invx runs the command without a shell; "+
				"quote it, put the pipeline in a script, or use sh -c '...'", c, i)
		default:
			word.WriteByte(c)
			inArg = true
		}
	}
	flush()
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
