package cmd

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
)

// promText builds the Prometheus text exposition format (version 0.0.4) by
// hand, for a node-exporter textfile collector: each metric family once,
// HELP and TYPE first, then its samples. It is small on purpose, so that it
// can be replaced by prometheus/client_golang's registry and expfmt later
// without touching what invx stats computes.
type promText struct {
	fams   []*promFamily
	byName map[string]*promFamily
}

type promFamily struct {
	name, typ, help string
	samples         []promSample
}

type promSample struct {
	labels []string // name, value, name, value, ...
	value  float64
}

// Prometheus metric types used by invx stats.
const (
	promCounter = "counter"
	promGauge   = "gauge"
)

// add records one sample of family name, declaring the family on first use.
// labels are name/value pairs.
func (p *promText) add(name, typ, help string, value float64, labels ...string) {
	if p.byName == nil {
		p.byName = map[string]*promFamily{}
	}
	f := p.byName[name]
	if f == nil {
		f = &promFamily{name: name, typ: typ, help: help}
		p.byName[name] = f
		p.fams = append(p.fams, f)
	}
	f.samples = append(f.samples, promSample{labels: labels, value: value})
}

// write renders the families in the order they were first added.
func (p *promText) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, f := range p.fams {
		bw.WriteString("# HELP " + f.name + " " + promEscape(f.help, false) + "\n")
		bw.WriteString("# TYPE " + f.name + " " + f.typ + "\n")
		for _, s := range f.samples {
			bw.WriteString(f.name)
			if len(s.labels) > 0 {
				bw.WriteByte('{')
				for i := 0; i+1 < len(s.labels); i += 2 {
					if i > 0 {
						bw.WriteByte(',')
					}
					bw.WriteString(s.labels[i] + `="` + promEscape(s.labels[i+1], true) + `"`)
				}
				bw.WriteByte('}')
			}
			bw.WriteString(" " + promFloat(s.value) + "\n")
		}
	}
	return bw.Flush()
}

// promEscape escapes a HELP text (backslash, newline) or a label value
// (also the double quote).
func promEscape(s string, quote bool) string {
	r := []string{`\`, `\\`, "\n", `\n`}
	if quote {
		r = append(r, `"`, `\"`)
	}
	return strings.NewReplacer(r...).Replace(s)
}

func promFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
