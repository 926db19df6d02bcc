package extract

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// marshalEvents is how the payloads were written before they were written by
// hand: the oracle the hand encoding must match byte for byte, since sinks
// and stored rows already hold payloads in this form.
func marshalEvents(l *store.Lease, res *schema.Result) []store.OutboxInput {
	evs := make([]store.OutboxInput, 0, len(res.Actions)+1)
	for _, a := range res.Actions {
		payload, _ := json.Marshal(map[string]any{
			"event": "invoice.action", "tenant": l.Tenant, "job_key": l.JobKey, "schema_version": res.Version,
			"action": a,
		})
		evs = append(evs, store.OutboxInput{ActionID: a.ID, Kind: a.Kind, Payload: payload})
	}
	payload, _ := json.Marshal(map[string]any{
		"event": store.EventCommitted, "tenant": l.Tenant, "job_key": l.JobKey, "schema_version": res.Version,
		"source_path": l.SourcePath, "result": json.RawMessage(res.JSON),
	})
	return append(evs, store.OutboxInput{ActionID: store.EventCommitted, Kind: store.EventCommitted, Payload: payload})
}

func TestOutboxEventsMatchMarshal(t *testing.T) {
	t.Parallel()
	leases := []*store.Lease{
		{Tenant: "default", JobKey: "5ea838c4244861b02bfa2a6bb68c21f2e73c4324c7ab45ce80594b3540aab798", SourcePath: "0000/inv-1.txt"},
		{Tenant: "acme <eu> & co", JobKey: "k\"1\\", SourcePath: "Zürich/rechnung\u2028 <1>.txt"},
	}
	results := []*schema.Result{
		{Version: schema.V2, JSON: []byte(`{"schema_version":"invoice-v2","title":"Plain"}`), Actions: []schema.ActionItem{}},
		{Version: schema.V1, JSON: []byte(`{"title":"A <b>bold</b> & \u2028 \u2029 line","n":1.5,"e":"\u00e9\ud83e\uddfe"}`),
			Actions: []schema.ActionItem{
				{ID: "a1", Kind: "review_tax", Evidence: "VAT <19%> & more\u2028"},
				{ID: "invoice.committed", Kind: "contact_supplier", Evidence: "\"quoted\" \\ back"},
			}},
		{Version: schema.V1, JSON: []byte("{\"raw\":\"\u2028\u2029 \xe2\x82\xac\"}"), Actions: []schema.ActionItem{}},
	}
	for _, l := range leases {
		for _, res := range results {
			if d := cmp.Diff(marshalEvents(l, res), outboxEvents(l, res)); d != "" {
				t.Errorf("tenant %q, result %s: (-marshal +hand)\n%s", l.Tenant, res.JSON, d)
			}
		}
	}
}
