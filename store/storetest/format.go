package storetest

import (
	"context"
	"testing"

	"github.com/invx/invx/store"
)

// testFormatRoute: a job keeps the input format and the provider route it
// was enqueued with, and a document without them reads back empty.
func testFormatRoute(t *testing.T, s store.Store) {
	xml := Doc("t1", "inv.xml", "<Invoice/>")
	xml.Format, xml.Route = "ubl-invoice", "einvoice"
	txt := Doc("t1", "a.txt", "Acme Ltd")
	txt.Format, txt.Route = "txt", "rules"
	old := Doc("t1", "old.txt", "Older Ltd")
	eqSlice(t, "outcomes", outcomes(enqueue(t, s, "t1", store.OnChangeHold, xml, txt, old)),
		[]string{store.EnqueueNew, store.EnqueueNew, store.EnqueueNew})
	for ref, want := range map[string][2]string{
		"inv.xml": {"ubl-invoice", "einvoice"}, "a.txt": {"txt", "rules"}, "old.txt": {"", ""},
	} {
		j, err := s.GetJob(context.Background(), &store.GetJobParams{Tenant: "t1", Ref: ref})
		if err != nil {
			t.Fatalf("get job %s: %v", ref, err)
		}
		eq(t, "format of "+ref, j.SourceFormat, want[0])
		eq(t, "route of "+ref, j.Route, want[1])
	}
}
