package eval

import (
	"errors"
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

// ParsePrice parses one --price flag (invx eval and invx stats):
// PROVIDER:MODEL=IN/OUT, prices per million input and output tokens
// ("openai:gpt-4o-mini=0.15/0.60"). PROVIDER or MODEL may be "*". The
// model may hold colons (ollama:llama3.1:8b=0/0): the provider ends at the
// first colon and the prices start after the last equals sign. The error
// says what is wrong, for the caller to prefix with the flag.
func ParsePrice(s string) (Price, error) {
	sel, amounts, ok := cutLast(s, "=")
	prov, model, ok2 := strings.Cut(sel, ":")
	if !ok || !ok2 || prov == "" || model == "" {
		return Price{}, errors.New("want PROVIDER:MODEL=IN/OUT, prices per million tokens")
	}
	in, out, ok := strings.Cut(amounts, "/")
	if !ok {
		return Price{}, errors.New("want IN/OUT after =, such as 0.40/1.60")
	}
	p := Price{Provider: prov, Model: model}
	for _, x := range []struct {
		s string
		v *float64
	}{{in, &p.In}, {out, &p.Out}} {
		v, err := strconv.ParseFloat(strings.TrimSpace(x.s), 64)
		if err != nil || !(v >= 0) || v > 1e9 { // NaN fails v >= 0
			return Price{}, fmt.Errorf("%q is not a price (a non-negative number)", x.s)
		}
		*x.v = v
	}
	return p, nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// Lookup finds the price of an attempt by provider names (the adapter's,
// and the label the user gave) and model: an exact model beats "*", an
// exact provider beats "*", and of two equally specific prices the later
// flag wins.
func (ps Prices) Lookup(names []string, model string) (Price, bool) {
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
		if rank >= bestRank {
			best, bestRank = p, rank
		}
	}
	return best, bestRank >= 0
}

// Cost of tokens at a price.
func (p Price) Cost(in, out int64) float64 {
	return (float64(in)*p.In + float64(out)*p.Out) / 1e6
}

// BatchDiscount is the share of the price the providers' batch APIs charge
// (OpenAI Batch API, Anthropic Message Batches: 50 %).
const BatchDiscount = 0.5

// CostWithBatch is the cost of in and out tokens of which batchIn and
// batchOut were spent by batch requests, priced at BatchDiscount. eval
// itself calls providers synchronously: the discount shows in invx stats.
func (p Price) CostWithBatch(in, out, batchIn, batchOut int64) float64 {
	return p.Cost(in-batchIn, out-batchOut) + BatchDiscount*p.Cost(batchIn, batchOut)
}
