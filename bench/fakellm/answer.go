package main

import (
	"context"
	"fmt"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/extract/replay"
	"github.com/invx/invx/extract/rules"
	"github.com/invx/invx/schema"
)

// answerer produces the candidate answer for one document: from a replay
// recording when it has one, else from the rules extractor. Both are invx's
// own code, so the answer is what invx would accept from a model.
type answerer struct {
	rules *rules.Provider
	// cache answers from a recording of a rules run; nil without -answers.
	cache  *replay.Provider
	tenant string
}

func newAnswerer(dir, tenant string) (*answerer, error) {
	a := &answerer{rules: rules.New(), tenant: tenant}
	if dir == "" {
		return a, nil
	}
	p, err := replay.New(dir)
	if err != nil {
		return nil, fmt.Errorf("open answers: %w", err)
	}
	a.cache = p
	return a, nil
}

// Where an answer came from.
const (
	fromRecording = "recording"
	fromRules     = "rules"
)

// answer returns the JSON answer for text under version v and where it came
// from (fromRecording or fromRules).
func (a *answerer) answer(ctx context.Context, v *schema.Version, text string) ([]byte, string, error) {
	if out := a.recorded(ctx, v, text); out != nil {
		return out, fromRecording, nil
	}
	resp, err := a.rules.Extract(ctx, &extract.Request{Tenant: a.tenant, Attempt: 1, Text: text, Schema: v})
	if err != nil {
		return nil, "", fmt.Errorf("rules: %w", err)
	}
	return resp.Output, fromRules, nil
}

// recorded looks the document up in the recording by the job key invx gives
// it (same tenant, schema version and text); nil when there is no usable
// answer for its first attempt, which is what a rules run records.
func (a *answerer) recorded(ctx context.Context, v *schema.Version, text string) []byte {
	if a.cache == nil {
		return nil
	}
	key, err := extract.JobKey(a.tenant, extract.Transformation, v.Name, extract.Digest(text))
	if err != nil {
		return nil
	}
	resp, err := a.cache.Extract(ctx, &extract.Request{Tenant: a.tenant, JobKey: key, Attempt: 1, Text: text, Schema: v})
	if err != nil || resp == nil || len(resp.Output) == 0 {
		return nil
	}
	return resp.Output
}
