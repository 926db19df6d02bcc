package rules

import (
	"bytes"
	"context"
	"encoding/json"
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
	if req.Schema.Name != schema.V1 {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent,
			Msg: fmt.Sprintf("the rules provider only writes %s, not %s", schema.V1, req.Schema.Name)}
	}
	doc := Extract(req.Text)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Msg: "encode answer", Err: err}
	}
	return &extract.Response{Output: bytes.TrimSpace(buf.Bytes()), Model: Model}, nil
}
