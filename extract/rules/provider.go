package rules

import (
	"context"
	"fmt"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/schema"
)

// Provider is the embedded, offline, deterministic default provider. Its
// answers go through the same validation as any model's.
type Provider struct{}

var _ extract.Provider = (*Provider)(nil)

// New returns the rules provider.
func New() *Provider { return &Provider{} }

// Name implements extract.Provider.
func (*Provider) Name() string { return "rules" }

// Model names the rule set, recorded on every attempt so a change of rules
// is visible next to the results it produced.
const Model = "rules-v1"

// Extract implements extract.Provider.
func (*Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The answers are written by hand (schema.AppendV1/V2), byte for byte what
	// json.Encoder without HTML escaping wrote.
	var out []byte
	switch req.Schema.Name {
	case schema.V1:
		doc := Extract(req.Text)
		out = schema.AppendV1(make([]byte, 0, 1024), &doc)
	case schema.V2:
		doc := ExtractV2(req.Text)
		out = schema.AppendV2(make([]byte, 0, 2048), &doc)
	default:
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("the rules provider writes %s and %s, not %s", schema.V1, schema.V2, req.Schema.Name)}
	}
	return &extract.Response{Output: out, Model: Model}, nil
}
