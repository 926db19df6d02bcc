package eval

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, for a
// pull-request comment: the table, the gates' verdict, and per provider the
// documents that differ in a collapsed section.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### invx eval: %s\n\n", mdText(r.Suite))
	fmt.Fprintf(&b, "%d documents, schema `%s`.\n\n", r.Documents, r.SchemaVersion)
	if r.Provenance != nil {
		fmt.Fprintf(&b, "<sub>%s</sub>\n\n", mdText(r.Provenance.line()))
	}
	b.WriteString("| metric |")
	for _, p := range r.Providers {
		fmt.Fprintf(&b, " %s |", mdCell(p.Label))
	}
	b.WriteString("\n| --- |")
	for range r.Providers {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	for _, rw := range comparison(r) {
		fmt.Fprintf(&b, "| %s |", rw.Metric)
		for _, c := range rw.Cells {
			fmt.Fprintf(&b, " %s |", mdCell(c))
		}
		b.WriteString("\n")
	}
	if g := r.Gates; g != nil {
		if g.Passed {
			b.WriteString("\n**Gates passed.**\n")
		} else {
			fmt.Fprintf(&b, "\n**Gates failed (%d):**\n\n", len(g.Failures))
			for _, f := range g.Failures {
				fmt.Fprintf(&b, "- %s\n", mdText(f))
			}
		}
		for _, n := range g.Notes {
			fmt.Fprintf(&b, "\n_Note: %s_\n", mdText(n))
		}
	}
	for _, p := range r.Providers {
		var diffs []*DocResult
		for _, d := range p.Results {
			if !d.Admitted() || len(d.Mismatches) > 0 {
				diffs = append(diffs, d)
			}
		}
		if len(diffs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n<details><summary>%s: %d of %d documents differ</summary>\n\n", htmlText(p.Label), len(diffs), p.Documents)
		b.WriteString("| document | difference |\n| --- | --- |\n")
		for _, d := range diffs {
			fmt.Fprintf(&b, "| %s | %s |\n", mdCell(docPath(r.Suite, d)), mdCell(describe(d)))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mdCell makes text safe inside a table cell: no line breaks, pipes
// escaped, and no HTML or Markdown markup from file names or errors.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

// mdText escapes the characters that would start markup.
func mdText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
		"<", "&lt;", ">", "&gt;", "&", "&amp;", "#", `\#`)
	return r.Replace(s)
}

// htmlText escapes text for the HTML of a <summary>.
func htmlText(s string) string {
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", `"`, "&quot;")
	return r.Replace(s)
}
