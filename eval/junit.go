package eval

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JUnit XML, in the shape CI systems read: one testsuite per provider, one
// testcase per document. A document whose answer was admitted but has
// fields wrong is a <failure> naming those fields; a document whose answer
// never passed validation (rejected) or whose calls failed is an <error>,
// so quality regressions and broken answers are counted apart.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML. Testcase classnames are the
// sub-suite and the provider label ("invoices.rules",
// "invoices.replay:fake-llm"): CI viewers group cases by classname, and
// without the label two providers' cases of one document would merge. When
// gates were checked, a testsuite "gates" holds a failing testcase per
// failed gate (or one passing case), so a gate failure shows in the viewer
// as well as in the exit code.
func WriteJUnit(w io.Writer, r *Report) error {
	all := junitSuites{Name: "invx eval " + r.Suite, Time: seconds(r.Timing.wallMS())}
	var prov []junitProperty
	date := ""
	if pv := r.Provenance; pv != nil {
		date = pv.Date
		prov = []junitProperty{{"invx.version", pv.InvxVersion}, {"invx.vcs_revision", pv.VCSRevision},
			{"date", pv.Date}, {"suite.digest", pv.SuiteDigest}}
	}
	for _, p := range r.Providers {
		s := junitSuite{Name: p.Label, Timestamp: date, Tests: len(p.Results), Time: seconds(p.Timing.wallMS())}
		s.Properties = append(s.Properties, prov...)
		s.Properties = append(s.Properties,
			junitProperty{"provider", p.Provider},
			junitProperty{"model", strings.Join(p.Models, ",")},
			junitProperty{"admission", fmtShare(p.Admission)})
		for _, f := range r.ScoredFields() {
			if fs := p.Accuracy[f]; fs != nil && fs.Accuracy != nil {
				s.Properties = append(s.Properties, junitProperty{f + ".accuracy", fmtShare(*fs.Accuracy)})
			}
		}
		for _, d := range p.Results {
			c := junitCase{Name: d.Name, Classname: strings.ReplaceAll(d.SubSuite, "/", ".") + "." + p.Label,
				Time: seconds(d.Timing.ms())}
			switch {
			case !d.Admitted():
				c.Error = &junitProblem{Type: d.State, Message: cmp.Or(d.Category, d.State), Text: describe(d)}
				s.Errors++
			case len(d.Mismatches) > 0:
				c.Failure = &junitProblem{Type: "mismatch", Message: "fields differ: " + strings.Join(d.Fields(), ", ")}
				lines := make([]string, len(d.Mismatches))
				for i, m := range d.Mismatches {
					lines[i] = fmt.Sprintf("%s: got %s, want %s", m.Field, value(m.Got), value(m.Want))
				}
				c.Failure.Text = strings.Join(lines, "\n")
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Suites = append(all.Suites, s)
	}
	if g := r.Gates; g != nil {
		s := junitSuite{Name: "gates", Timestamp: date, Time: seconds(0), Properties: prov}
		class := r.Suite + ".gates"
		for _, f := range g.Failures {
			s.Cases = append(s.Cases, junitCase{Name: f, Classname: class, Time: seconds(0),
				Failure: &junitProblem{Type: "gate", Message: f}})
			s.Failures++
		}
		if len(g.Failures) == 0 {
			s.Cases = append(s.Cases, junitCase{Name: "all gates passed", Classname: class, Time: seconds(0)})
		}
		s.Tests = len(s.Cases)
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Suites = append(all.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func (t *ReportTiming) wallMS() float64 {
	if t == nil {
		return 0
	}
	return t.WallMS
}

func (t *ProviderTiming) wallMS() float64 {
	if t == nil {
		return 0
	}
	return t.WallMS
}

func (t *DocTiming) ms() float64 {
	if t == nil {
		return 0
	}
	return t.MS
}

func seconds(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }

func fmtShare(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
