package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// tablePrinter prints the rows of a listing command the way gh does: on a
// terminal, a header and columns aligned with two spaces between them; when
// piped, one line per row with tab-separated cells and no header, for cut,
// awk and sort. Machines that want names should use --json instead.
//
// Every cell is made safe to print: a cell with a control character (a tab
// or newline in a file name, say) is shown quoted, so it can never break a
// row or forge another one.
type tablePrinter struct {
	w      io.Writer
	tty    bool
	header []string
	rows   [][]string
	// maxWidth caps a column's width on a terminal (0: no cap); longer
	// cells are cut with an ellipsis. Piped output is never cut.
	maxWidth map[int]int
	// cutLeft marks capped columns cut at their start (paths: the file
	// name at the end is the part that tells rows apart).
	cutLeft map[int]bool
	// headers: "" prints the header on a terminal only (gh's default for
	// most listings); "always" also when piped, as kubectl and gh do for
	// listings scripts read by column name; "never" drops it (--no-headers).
	headers string
}

func newTable(w io.Writer, tty bool, header ...string) *tablePrinter {
	return &tablePrinter{w: w, tty: tty, header: header, maxWidth: map[int]int{}, cutLeft: map[int]bool{}}
}

// capColumnLeft limits column i to n runes on a terminal, cutting its start.
func (t *tablePrinter) capColumnLeft(i, n int) {
	t.maxWidth[i] = n
	t.cutLeft[i] = true
}

// capColumn limits column i to n runes on a terminal.
func (t *tablePrinter) capColumn(i, n int) { t.maxWidth[i] = n }

// addRow adds one row; it must have as many cells as the header.
func (t *tablePrinter) addRow(cells ...string) {
	row := make([]string, len(t.header))
	for i := range row {
		if i < len(cells) {
			row[i] = safeCell(cells[i])
		}
	}
	t.rows = append(t.rows, row)
}

// render writes the table.
func (t *tablePrinter) render() error {
	bw := bufio.NewWriter(t.w)
	if !t.tty {
		if t.headers == "always" {
			if _, err := bw.WriteString(strings.Join(t.header, "\t") + "\n"); err != nil {
				return err
			}
		}
		for _, r := range t.rows {
			if _, err := bw.WriteString(strings.Join(r, "\t") + "\n"); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	rows := make([][]string, 0, len(t.rows)+1)
	if t.headers != "never" {
		rows = append(rows, t.header)
	}
	for _, r := range t.rows {
		cut := make([]string, len(r))
		for i, c := range r {
			if t.cutLeft[i] {
				cut[i] = truncateLeft(c, t.maxWidth[i])
			} else {
				cut[i] = truncate(c, t.maxWidth[i])
			}
		}
		rows = append(rows, cut)
	}
	widths := make([]int, len(t.header))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				line.WriteString(c)
				break
			}
			line.WriteString(c)
			line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
		}
		if _, err := bw.WriteString(strings.TrimRight(line.String(), " ") + "\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// safeCell quotes a cell holding a control character (Go syntax), so a tab
// or newline inside a value cannot split a row.
func safeCell(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(s)
		}
	}
	return s
}

// truncate cuts s to n runes, the last one an ellipsis (n <= 0: no cut).
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// truncateLeft cuts s to its last n runes, the first one an ellipsis (n <=
// 0: no cut).
func truncateLeft(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n+1:])
}

// printJSON writes v as indented JSON without HTML escaping: what listing
// commands print with --json. Callers pass a non-nil slice so an empty
// listing is [] rather than null.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// shortKey is the job key prefix listings show: 12 hex digits, enough to be
// unique in practice and accepted by every command that takes a KEY.
func shortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}

// humanAge renders how long ago t was, in the largest whole unit: 45s, 12m,
// 5h, 3d. A time in the future (a clock that moved back) is 0s.
func humanAge(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}

// parseAge reads an age such as 90d, 7d12h, 36h or 15m: a Go duration,
// optionally led by a whole number of days (24h each). It must be positive.
// jobs --since, export --since and prune --older-than share it.
func parseAge(s string) (time.Duration, error) {
	orig := s
	bad := fmt.Errorf("%q: want a duration such as 90d, 36h or 15m", orig)
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseUint(s[:i], 10, 32)
		if err != nil || i == 0 {
			return 0, bad
		}
		days = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
		if days/(24*time.Hour) != time.Duration(n) || n > 100*365 {
			return 0, fmt.Errorf("%q: too long", orig)
		}
	}
	var rest time.Duration
	if s != "" {
		var err error
		if rest, err = time.ParseDuration(s); err != nil || rest < 0 {
			return 0, bad
		}
	}
	d := days + rest
	if d <= 0 {
		return 0, fmt.Errorf("%q: want a positive duration such as 90d, 36h or 15m", orig)
	}
	return d, nil
}
