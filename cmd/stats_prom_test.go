package cmd

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hand-written exposition: families once, HELP and TYPE first, label
// values and help text escaped, special floats spelled as Prometheus does.
func TestPromText(t *testing.T) {
	t.Parallel()
	var p promText
	p.add("invx_a_total", promCounter, "A counter.\nSecond \\ line.", 3, "tenant", "acme")
	p.add("invx_b", promGauge, "A gauge.", 0.25, "tenant", "acme", "model", `we"ird\name`+"\n")
	p.add("invx_a_total", promCounter, "ignored: declared already", 4, "tenant", "globex")
	p.add("invx_c", promGauge, "Special values.", math.Inf(1))
	p.add("invx_c", promGauge, "", math.NaN(), "tenant", "x")
	var b strings.Builder
	if err := p.write(&b); err != nil {
		t.Fatal(err)
	}
	want := `# HELP invx_a_total A counter.\nSecond \\ line.
# TYPE invx_a_total counter
invx_a_total{tenant="acme"} 3
invx_a_total{tenant="globex"} 4
# HELP invx_b A gauge.
# TYPE invx_b gauge
invx_b{tenant="acme",model="we\"ird\\name\n"} 0.25
# HELP invx_c Special values.
# TYPE invx_c gauge
invx_c +Inf
invx_c{tenant="x"} NaN
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("exposition (-want +got):\n%s", diff)
	}
}
