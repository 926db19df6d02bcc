package eval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Price is what a provider's model costs per million tokens.
type Price struct {
	// Provider and Model select the attempts the price applies to; "*"
	// matches any.
	Provider string
	Model    string
	In       float64
	Out      float64
}

// Prices are the --price flags, most specific first when looked up.
type Prices []Price

// ParsePrice parses PROVIDER:MODEL=IN/OUT, prices per million input and
// output tokens ("openai:gpt-4o-mini=0.15/0.60"). PROVIDER or MODEL may be
// "*".
func ParsePrice(s string) (Price, error) {
	sel, amounts, ok := strings.Cut(s, "=")
	prov, model, ok2 := strings.Cut(sel, ":")
	in, out, ok3 := strings.Cut(amounts, "/")
	if !ok || !ok2 || !ok3 || prov == "" || model == "" {
		return Price{}, fmt.Errorf("price %q: want PROVIDER:MODEL=IN/OUT (per million tokens), such as openai:gpt-4o-mini=0.15/0.60", s)
	}
	pin, err1 := strconv.ParseFloat(in, 64)
	pout, err2 := strconv.ParseFloat(out, 64)
	if err1 != nil || err2 != nil || pin < 0 || pout < 0 || pin != pin || pout != pout {
		return Price{}, fmt.Errorf("price %q: IN and OUT must be non-negative numbers", s)
	}
	return Price{Provider: prov, Model: model, In: pin, Out: pout}, nil
}

// lookup finds the price of an attempt by provider names (the adapter's,
// and the label the user gave) and model: an exact model beats "*", an
// exact provider beats "*".
func (ps Prices) lookup(names []string, model string) (Price, bool) {
	best, bestRank := Price{}, -1
	for _, p := range ps {
		rank := 0
		switch {
		case p.Model == model:
			rank += 2
		case p.Model != "*":
			continue
		}
		switch {
		case slices.Contains(names, p.Provider):
			rank++
		case p.Provider != "*":
			continue
		}
		if rank > bestRank {
			best, bestRank = p, rank
		}
	}
	return best, bestRank >= 0
}

// cost of tokens at a price.
func (p Price) cost(in, out int64) float64 {
	return (float64(in)*p.In + float64(out)*p.Out) / 1e6
}
