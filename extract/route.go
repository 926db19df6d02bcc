package extract

import (
	"context"
	"strings"

	"github.com/invx/invx/internal/einvoice"
)

// AutoName is the name of the routing provider (--provider auto).
const AutoName = "auto"

// Router is a provider that hands each document to one of several
// providers by its input format. Route names the provider a document of
// that format goes to (the runner stores it on the job); RouteText the one
// a document's text goes to (attempts and metrics name it, so a text
// document read by rules under auto is counted as rules).
type Router interface {
	Route(format string) string
	RouteText(text string) string
}

// RouteOf names the provider that handles a document of format under p:
// p's route when p routes, else p itself.
func RouteOf(p Provider, format string) string {
	if r, ok := p.(Router); ok {
		return r.Route(format)
	}
	return p.Name()
}

// RouteOfText names the provider that handles a document's text under p.
func RouteOfText(p Provider, text string) string {
	if r, ok := p.(Router); ok {
		return r.RouteText(text)
	}
	return p.Name()
}

// Auto routes structured e-invoices to EInvoice and everything else to
// Text. It decides from the document itself (its root element), not from a
// file name, so a job worked later by invx work is routed the same way.
type Auto struct {
	EInvoice Provider
	Text     Provider
}

var (
	_ Provider = (*Auto)(nil)
	_ Router   = (*Auto)(nil)
)

// Name implements Provider.
func (*Auto) Name() string { return AutoName }

// Route implements Router.
func (a *Auto) Route(format string) string {
	// A PDF's embedded e-invoice ("pdf/cii") is read as the e-invoice.
	if einvoice.IsEInvoice(strings.TrimPrefix(format, FormatPDF+"/")) {
		return a.EInvoice.Name()
	}
	return a.Text.Name()
}

// RouteText implements Router.
func (a *Auto) RouteText(text string) string { return a.pick(text).Name() }

// Extract implements Provider: it detects the format of the text and calls
// the provider of its route.
func (a *Auto) Extract(ctx context.Context, req *Request) (*Response, error) {
	return a.pick(req.Text).Extract(ctx, req)
}

// pick is the provider for a document's text. Only a text that starts
// like XML is parsed for its root element.
func (a *Auto) pick(text string) Provider {
	if looksXML(text) {
		if f, err := einvoice.Detect(text); err == nil && einvoice.IsEInvoice(f) {
			return a.EInvoice
		}
	}
	return a.Text
}

// looksXML reports whether text's first non-space byte opens a tag.
func looksXML(text string) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '<':
			return true
		}
		return false
	}
	return false
}
