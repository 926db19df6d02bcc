package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// row is one line of the comparison: a metric and one cell per provider.
type row struct {
	Metric string
	Cells  []string
}

// comparison is the side-by-side table every format shows.
func comparison(r *Report) []row {
	var rows []row
	add := func(metric string, f func(p *ProviderReport) string) {
		rw := row{Metric: metric}
		for _, p := range r.Providers {
			rw.Cells = append(rw.Cells, f(p))
		}
		rows = append(rows, rw)
	}
	add("provider", func(p *ProviderReport) string { return p.Provider })
	add("model", func(p *ProviderReport) string { return orDash(strings.Join(p.Models, ", ")) })
	add("admission", func(p *ProviderReport) string {
		return fmt.Sprintf("%s (%d/%d)", pct(p.Admission), p.Committed, p.Documents)
	})
	add("rejected / failed", func(p *ProviderReport) string {
		s := fmt.Sprintf("%d / %d", p.Rejected, p.Failed)
		if p.Unfinished > 0 {
			s += fmt.Sprintf(" (+%d unfinished)", p.Unfinished)
		}
		return s
	})
	for _, f := range r.ScoredFields() {
		add(f, func(p *ProviderReport) string {
			fs := p.Accuracy[f]
			if fs == nil || fs.Accuracy == nil {
				return "-"
			}
			if fs.Wrong > 0 {
				return fmt.Sprintf("%s (%d/%d, %d wrong)", pct(*fs.Accuracy), fs.Right, fs.Scored, fs.Wrong)
			}
			return fmt.Sprintf("%s (%d/%d)", pct(*fs.Accuracy), fs.Right, fs.Scored)
		})
	}
	add("action precision", func(p *ProviderReport) string { return pctOrDash(p.Actions.Precision) })
	add("action recall", func(p *ProviderReport) string { return pctOrDash(p.Actions.Recall) })
	add("attempts", func(p *ProviderReport) string { return strconv.Itoa(p.Attempts) })
	add("repairs", func(p *ProviderReport) string {
		return fmt.Sprintf("%d (%d documents)", p.Repairs, p.RepairedDocuments)
	})
	add("tokens in / out", func(p *ProviderReport) string { return fmt.Sprintf("%d / %d", p.InputTokens, p.OutputTokens) })
	add("estimated cost", func(p *ProviderReport) string {
		if p.Cost == nil {
			return "-"
		}
		return strconv.FormatFloat(*p.Cost, 'f', 4, 64)
	})
	add("cost via --batch", func(p *ProviderReport) string {
		if p.BatchCost == nil {
			return "-"
		}
		return strconv.FormatFloat(*p.BatchCost, 'f', 4, 64)
	})
	add("latency p50 / p95", func(p *ProviderReport) string {
		return fmt.Sprintf("%s / %s", msString(p.Timing.P50MS), msString(p.Timing.P95MS))
	})
	return rows
}

// difference is one document of one provider that is not right.
type difference struct {
	Label string
	Doc   *DocResult
}

func differences(r *Report) []difference {
	var out []difference
	for _, p := range r.Providers {
		for _, d := range p.Results {
			if !d.Admitted() || len(d.Mismatches) > 0 {
				out = append(out, difference{p.Label, d})
			}
		}
	}
	return out
}

// describe says in one line what is wrong with a document.
func describe(d *DocResult) string {
	if !d.Admitted() {
		s := d.State
		if d.Category != "" {
			s += " (" + d.Category + ")"
		}
		if d.Error != "" {
			s += ": " + d.Error
		}
		return s
	}
	parts := make([]string, len(d.Mismatches))
	for i, m := range d.Mismatches {
		parts[i] = fmt.Sprintf("%s: got %s, want %s", m.Field, value(m.Got), value(m.Want))
	}
	return strings.Join(parts, "; ")
}

// docPath is a document's path with its suite ("invoices/edge/x.txt").
func docPath(suite string, d *DocResult) string { return suite + "/" + d.Name }

// WriteText writes the comparison for a person. On a terminal (tty) the
// columns are aligned; otherwise cells are tab-separated, one line per row,
// for cut and awk. Documents that differ follow the table.
func WriteText(w io.Writer, r *Report, tty bool) error {
	var buf bytes.Buffer
	out := io.Writer(&buf)
	var tw *tabwriter.Writer
	if tty {
		tw = tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		out = tw
	}
	fmt.Fprintf(&buf, "suite %s: %d documents, schema %s\n", r.Suite, r.Documents, r.SchemaVersion)
	header := []string{"metric"}
	for _, p := range r.Providers {
		header = append(header, p.Label)
	}
	fmt.Fprintln(out, joinCells(header))
	for _, rw := range comparison(r) {
		fmt.Fprintln(out, joinCells(append([]string{rw.Metric}, rw.Cells...)))
	}
	if tw != nil {
		tw.Flush()
	}
	if diffs := differences(r); len(diffs) > 0 {
		fmt.Fprintf(&buf, "\ndocuments that differ (%d):\n", len(diffs))
		if tw != nil {
			tw = tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
			out = tw
		}
		for _, d := range diffs {
			fmt.Fprintln(out, joinCells([]string{d.Label, docPath(r.Suite, d.Doc), describe(d.Doc)}))
		}
		if tw != nil {
			tw.Flush()
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func joinCells(cells []string) string {
	safe := make([]string, len(cells))
	for i, c := range cells {
		safe[i] = safeCell(c)
	}
	return strings.Join(safe, "\t")
}

// safeCell quotes a cell holding a control character (a tab or newline in
// a file name or an error), so it can never break a row.
func safeCell(s string) string {
	for _, r := range s {
		if unicode.IsControl(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// value renders an expected or extracted value as JSON: "text", 123, null,
// ["kind"].
func value(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

func pctOrDash(x *float64) string {
	if x == nil {
		return "-"
	}
	return pct(*x)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func msString(x float64) string {
	switch {
	case x < 1:
		return "<1ms" // attempts store milliseconds
	case x >= 1000:
		return strconv.FormatFloat(x/1000, 'f', 2, 64) + "s"
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 0, 64) + "ms"
	default:
		return strconv.FormatFloat(x, 'f', 2, 64) + "ms"
	}
}
