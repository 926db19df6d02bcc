package eval

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/invx/invx/internal/browsertest"
)

func TestWriteJUnit(t *testing.T) {
	t.Parallel()
	r := runSmall(t)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
		Suites  []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Type string `xml:"type,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.Tests != 4 || len(doc.Suites) != 1 {
		t.Fatalf("tests %d suites %d:\n%s", doc.Tests, len(doc.Suites), buf.String())
	}
	s := doc.Suites[0]
	if s.Name != "fake:1" || s.Tests != 4 || s.Failures != 1 || s.Errors != 1 {
		t.Errorf("suite %q tests %d failures %d errors %d; want fake:1 4 1 1", s.Name, s.Tests, s.Failures, s.Errors)
	}
	for _, c := range s.Cases {
		switch c.Name {
		case "wrong.txt":
			if c.Failure == nil || c.Failure.Message != "fields differ: invoice_number, due_date, action_kinds" ||
				!strings.Contains(c.Failure.Text, `invoice_number: got "4500012345", want "AT-2026-0042"`) || c.Error != nil {
				t.Errorf("wrong.txt: %+v", c)
			}
		case "hard/broken.txt":
			if c.Error == nil || c.Error.Type != "rejected" || c.Failure != nil || c.Classname != "suite.hard.fake:1" {
				t.Errorf("hard/broken.txt: %+v", c)
			}
		default:
			if c.Error != nil || c.Failure != nil {
				t.Errorf("%s: %+v", c.Name, c)
			}
		}
	}
}

func TestWriteMarkdownAndText(t *testing.T) {
	t.Parallel()
	r := runSmall(t)
	floor := 0.9
	r.Gates = (&Gates{MinAdmission: &floor}).Check(r)
	var md, text bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, r, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| metric | fake:1 |", "| admission | 75.0% (3/4) |", "**Gates failed (1):**",
		"<details><summary>fake:1: 2 of 4 documents differ</summary>", "suite/hard/broken.txt"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"admission          75.0% (3/4)", "documents that differ (2):", "rejected (decode)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// The HTML page renders in a real browser, offline: its DOM holds the
// comparison table and the SVG chart with one bar per field.
func TestHTMLRendersInChromium(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	r := runSmall(t)
	// A label with markup must stay text.
	r.Providers[0].Label = `fake <b>"1"</b>`
	dir := t.TempDir()
	page := filepath.Join(dir, "eval.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, asset := range []string{"src=", "href=", "@import", "url("} {
		if strings.Contains(buf.String(), asset) {
			t.Errorf("the page refers to an outside asset (%s)", asset)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--disable-dev-shm-usage", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	d := string(dom)
	for _, want := range []string{`<table id="comparison">`, `<svg id="accuracy-chart"`, "<td>admission</td>",
		"<td>75.0% (3/4)</td>", "fake &lt;b&gt;\"1\"&lt;/b&gt;"} {
		if !strings.Contains(d, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
	if n := strings.Count(d, "<rect "); n != len(Fields)+1 { // a bar per field and the legend swatch
		t.Errorf("%d rects in the SVG, want %d", n, len(Fields)+1)
	}
	if strings.Contains(d, "<b>") {
		t.Error("markup in a label was rendered as HTML")
	}
}
