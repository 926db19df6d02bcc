package eval

import (
	"html/template"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// WriteHTML writes one self-contained page: the comparison table, a bar
// chart of per-field accuracy as inline SVG, the gates' verdict and the
// documents that differ. It loads nothing from the network: no scripts,
// fonts, images or style sheets.
func WriteHTML(w io.Writer, r *Report) error {
	header := make([]string, len(r.Providers))
	for i, p := range r.Providers {
		header[i] = p.Label
	}
	type diffs struct {
		Label string
		Docs  []difference
	}
	var byProvider []diffs
	for _, p := range r.Providers {
		ds := diffs{Label: p.Label}
		for _, d := range p.Results {
			if !d.Admitted() || len(d.Mismatches) > 0 {
				ds.Docs = append(ds.Docs, difference{p.Label, d})
			}
		}
		byProvider = append(byProvider, ds)
	}
	data := map[string]any{
		"R":       r,
		"Header":  header,
		"Rows":    comparison(r),
		"Chart":   accuracyChart(r),
		"Diffs":   byProvider,
		"Suite":   r.Suite,
		"Palette": palette,
	}
	return pageTmpl().Execute(w, data)
}

// palette colours the providers, in order (colour-blind safe, Okabe-Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

type chart struct {
	Width, Height int
	Grid          []gridLine
	Groups        []barGroup
	Legend        []legendItem
}

type gridLine struct {
	X     int
	Label string
}

type barGroup struct {
	Label  string
	LabelY int
	Bars   []bar
}

type bar struct {
	X, Y, W, H int
	TextX      int
	Color      string
	Text       string
	Title      string
}

type legendItem struct {
	X, Y  int
	Color string
	Label string
}

const (
	chartLeft   = 150 // room for field names
	chartWidth  = 520 // the 100% bar
	chartRight  = 70  // room for the value after a bar
	barHeight   = 16
	barGap      = 3
	groupGap    = 14
	chartTop    = 30 // room for the legend
	chartBottom = 24 // room for the axis labels
)

// accuracyChart lays out one group of bars per field, one bar per provider.
func accuracyChart(r *Report) chart {
	c := chart{Width: chartLeft + chartWidth + chartRight}
	x := chartLeft
	for i, p := range r.Providers {
		c.Legend = append(c.Legend, legendItem{X: x, Y: 8, Color: color(i), Label: p.Label})
		x += 40 + 7*utf8.RuneCountInString(p.Label)
	}
	c.Width = max(c.Width, x)
	y := chartTop
	for _, f := range r.ScoredFields() {
		g := barGroup{Label: f}
		top := y
		for i, p := range r.Providers {
			b := bar{X: chartLeft, Y: y, H: barHeight, Color: color(i), Text: "-", Title: p.Label + ": " + f + " not scored"}
			if fs := p.Accuracy[f]; fs != nil && fs.Accuracy != nil {
				b.W = int(*fs.Accuracy*chartWidth + 0.5)
				b.Text = pct(*fs.Accuracy)
				b.Title = p.Label + ": " + f + " " + b.Text + " (" + strconv.Itoa(fs.Right) + "/" + strconv.Itoa(fs.Scored) + ")"
			}
			b.TextX = chartLeft + b.W + 4
			g.Bars = append(g.Bars, b)
			y += barHeight + barGap
		}
		g.LabelY = (top+y-barGap)/2 + 4
		c.Groups = append(c.Groups, g)
		y += groupGap
	}
	c.Height = y - groupGap + chartBottom
	for _, q := range []int{0, 25, 50, 75, 100} {
		c.Grid = append(c.Grid, gridLine{X: chartLeft + q*chartWidth/100, Label: strconv.Itoa(q) + "%"})
	}
	return c
}

func color(i int) string { return palette[i%len(palette)] }

// pageTmpl is parsed on first use: every invx command pays package
// initialisation, and only eval --html renders this page.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"describe": describe,
		"docPath":  docPath,
		"sub":      func(a, b int) int { return a - b },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>invx eval: {{.Suite}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem; color: #1b1b1b; max-width: 1100px; }
h1 { font-size: 1.4rem; margin-bottom: .2rem; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
#comparison td:not(:first-child) { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f6f8fa; }
.pass { color: #1a7f37; font-weight: 600; }
.fail { color: #cf222e; font-weight: 600; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
svg text { font: 12px system-ui, sans-serif; fill: #1b1b1b; }
svg .axis { fill: #666; }
</style>
</head>
<body>
<h1>invx eval: {{.Suite}}</h1>
<p class="sub">{{.R.Documents}} documents, schema <code>{{.R.SchemaVersion}}</code>, tenant <code>{{.R.Tenant}}</code></p>
{{with .R.Provenance}}<p class="sub" id="provenance">invx <code>{{.InvxVersion}}</code>, revision <code>{{.VCSRevision}}</code>, {{.Date}}, suite <code>{{.SuiteDigest}}</code></p>{{end}}
{{with .R.Gates}}{{if .Passed}}<p class="pass" id="gates">Gates passed.</p>{{else}}<div id="gates"><p class="fail">Gates failed:</p><ul>{{range .Failures}}<li>{{.}}</li>{{end}}</ul></div>{{end}}{{range .Notes}}<p><em>Note: {{.}}</em></p>{{end}}{{end}}
<h2>Comparison</h2>
<table id="comparison">
<thead><tr><th>metric</th>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Metric}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<h2>Accuracy per field</h2>
{{with .Chart}}<svg id="accuracy-chart" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="accuracy per field and provider">
{{range .Legend}}<rect x="{{.X}}" y="{{.Y}}" width="12" height="12" fill="{{.Color}}"/><text x="{{.X}}" dx="16" y="{{.Y}}" dy="10">{{.Label}}</text>
{{end}}{{$h := .Height}}{{range .Grid}}<line x1="{{.X}}" x2="{{.X}}" y1="26" y2="{{sub $h 20}}" stroke="#d0d7de"/><text class="axis" x="{{.X}}" y="{{sub $h 6}}" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Groups}}<text x="{{sub 150 8}}" y="{{.LabelY}}" text-anchor="end">{{.Label}}</text>
{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Color}}"><title>{{.Title}}</title></rect><text x="{{.TextX}}" y="{{.Y}}" dy="12">{{.Text}}</text>
{{end}}{{end}}</svg>{{end}}
{{$suite := .Suite}}{{range .Diffs}}
<h2>{{.Label}}: documents that differ</h2>
{{if .Docs}}<table class="differences">
<thead><tr><th>document</th><th>difference</th></tr></thead>
<tbody>
{{range .Docs}}<tr><td><code>{{docPath $suite .Doc}}</code></td><td>{{describe .Doc}}</td></tr>
{{end}}</tbody>
</table>{{else}}<p>None: every document is right.</p>{{end}}
{{end}}
</body>
</html>
`))
})
