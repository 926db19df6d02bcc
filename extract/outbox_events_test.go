package extract_test

import (
	"context"
	"strings"
	"testing"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/store"
)

// An action item whose id is "invoice.committed" must not take the key of
// the commit's own invoice.committed event (issue 10, item 1): the commit
// publishes both, with distinct keys and their own kinds.
func TestActionIDInvoiceCommittedKeepsCommitEvent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	answerWithID := strings.Replace(validAnswer, `"id":"a1"`, `"id":"invoice.committed"`, 1)
	p := &fakeProvider{ExtractFunc: func(int64, *extract.Request) (*extract.Response, error) { return answer(answerWithID), nil }}
	r := newRunner(e, p, "acme")
	s := runDocs(t, r, doc("a.txt", sourceText))
	if s.Final.Succeeded != 1 {
		t.Fatalf("succeeded = %d, want 1 (summary %+v)", s.Final.Succeeded, s.Final)
	}
	key := r.Keys()[0]
	evs, err := e.Store.ListOutbox(context.Background(), &store.ListOutboxParams{Tenant: "acme", JobKey: key})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ev := range evs {
		got[ev.EventKey] = ev.Kind + " " + ev.ActionID
	}
	want := map[string]string{
		key + ":action:invoice.committed": "verify_purchase_order invoice.committed",
		key + ":invoice.committed":        "invoice.committed invoice.committed",
	}
	if len(evs) != 2 || len(got) != 2 || got[key+":action:invoice.committed"] != want[key+":action:invoice.committed"] ||
		got[key+":invoice.committed"] != want[key+":invoice.committed"] {
		t.Fatalf("outbox events = %v, want %v", got, want)
	}
	for _, ev := range evs {
		if ev.State != store.OutboxPending {
			t.Errorf("event %s state %s, want pending", ev.EventKey, ev.State)
		}
	}
}
