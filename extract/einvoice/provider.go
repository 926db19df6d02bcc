package einvoice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/invx/invx/extract"
	xinv "github.com/invx/invx/internal/einvoice"
	"github.com/invx/invx/schema"
)

// Name is the provider's name, as --provider takes it and attempts and
// jobs record it.
const Name = "einvoice"

// Model names the mapping, recorded on every attempt so that a change of
// mapping is visible next to the results it produced.
const Model = "einvoice-v1"

// Provider reads structured e-invoices. Its answers go through the same
// validation as any model's.
type Provider struct{}

var _ extract.Provider = (*Provider)(nil)

// New returns the e-invoice provider.
func New() *Provider { return &Provider{} }

// Name implements extract.Provider.
func (*Provider) Name() string { return Name }

// Extract implements extract.Provider. A document that is not a
// recognised e-invoice is a permanent failure: no retry can change it.
func (*Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inv, err := xinv.Parse(req.Text)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "read e-invoice: " + err.Error()}
	}
	var doc any
	switch req.Schema.Name {
	case schema.V1:
		doc = mapV1(inv)
	case schema.V2:
		if doc, err = mapV2(inv, req.Schema, req.Text); err != nil {
			return nil, &extract.ProviderError{Class: extract.ClassRejected, Msg: err.Error()}
		}
	default:
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("the einvoice provider writes %s and %s, not %s", schema.V1, schema.V2, req.Schema.Name)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "encode answer", Err: err}
	}
	return &extract.Response{Output: bytes.TrimSpace(buf.Bytes()), Model: Model}, nil
}
