package cmd_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/invx/invx/internal/browsertest"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

// A clerk's morning in a real browser: open the queue with the printed
// URL, move with the keyboard to the possible duplicate and open it (the
// other document's facts beside its own), go back, open the invoice without
// a total, hover its total's neighbour and correct the total, then accept
// the possible duplicate. The database and the outbox then hold exactly
// what the CLI would have written.
func TestReviewServeInBrowser(t *testing.T) {
	bin := browsertest.Chromium(t)
	e := setupOps(t)
	b := setupDesk(t, e)
	srv := deskServer(t, e)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first call starts the browser and must not carry a timeout (it
	// would stop the browser); the steps after it do.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
	defer cancelT()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	get := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	count := func(what, js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return n
	}

	do("open the queue with the printed URL",
		chromedp.Navigate(srv.URL+"/?token="+deskToken), chromedp.WaitVisible(chromedp.ID("queue")))
	rows := count("queue rows", `document.querySelectorAll("tr.row").length`)
	location := get("location", chromedp.Location())
	if rows != 2 || strings.Contains(location, "token") {
		t.Fatalf("queue: %d rows (want the duplicate and the incomplete invoice), location %q", rows, location)
	}
	// The duplicate is the first group: j selects it, Enter opens it.
	do("open the possible duplicate with the keyboard",
		chromedp.KeyEvent("j"), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.ID("dup")))
	location = get("location", chromedp.Location())
	dupOther := get("the other document's total", chromedp.Text(chromedp.CSS(`tr.fact[data-field="total_minor"] td.other`)))
	if !strings.HasSuffix(location, "/doc/"+b.rescan) || !strings.Contains(dupOther, "EUR") {
		t.Fatalf("duplicate page at %s, other total %q", location, dupOther)
	}
	do("back to the queue and into the incomplete invoice",
		chromedp.Click(chromedp.ID("back")), chromedp.WaitVisible(chromedp.ID("queue")),
		chromedp.Click(chromedp.CSS(`tr.row[data-state="incomplete"] td.key a`)), chromedp.WaitVisible(chromedp.ID("correct")))
	lit := count("hover the net amount", `document.querySelector('tr.fact[data-field="net_minor"]').dispatchEvent(new MouseEvent("mouseenter")),
		document.querySelectorAll("mark.ev.lit").length`)
	if lit == 0 {
		t.Error("hovering a fact lit no evidence in the text")
	}
	do("correct the total",
		chromedp.SendKeys(chromedp.CSS(`#correct textarea[name="sets"]`), "total=476.00"),
		chromedp.SendKeys(chromedp.CSS(`#correct input[name="reason"]`), "total from the PDF"),
		chromedp.Click(chromedp.CSS(`#correct button`)), chromedp.WaitVisible(chromedp.ID("done")))
	if done := get("confirmation", chromedp.Text(chromedp.ID("done"))); !strings.HasPrefix(done, "Corrected") {
		t.Fatalf("after correcting: %q", done)
	}
	do("accept the possible duplicate",
		chromedp.Navigate(srv.URL+"/doc/"+b.rescan), chromedp.WaitVisible(chromedp.ID("accept")),
		chromedp.SendKeys(chromedp.CSS(`#accept input[name="note"]`), "a second delivery, both paid"),
		chromedp.Click(chromedp.CSS(`#accept button`)), chromedp.WaitVisible(chromedp.ID("done")))
	if done := get("confirmation", chromedp.Text(chromedp.ID("done"))); !strings.HasPrefix(done, "Accepted") {
		t.Fatalf("after accepting: %q", done)
	}

	// The database: nothing open; the correction by ann with its reason.
	st := e.store()
	bg := context.Background()
	if items, err := st.ListReview(bg, &store.ListReviewParams{Tenant: "default"}); err != nil || len(items) != 0 {
		t.Fatalf("open reasons after the morning: %d (%v)", len(items), err)
	}
	revs, err := st.ListRevisions(bg, &store.ListRevisionsParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil || len(revs) != 1 || revs[0].Actor != "ann" || revs[0].Reason != "total from the PDF" {
		t.Fatalf("revisions of the corrected invoice: %+v (%v)", revs, err)
	}
	res, err := st.GetResult(bg, &store.GetResultParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil {
		t.Fatal(err)
	}
	d, err := schema.DecodeStoredV2(res.JSON)
	if err != nil || d.TotalMinor == nil || *d.TotalMinor != 47600 {
		t.Fatalf("corrected total: %v (%v)", d.TotalMinor, err)
	}
	// The outbox: no event held any more; the correction's event queued.
	for _, key := range []string{b.nordlicht, b.rescan} {
		evs, err := st.ListOutbox(bg, &store.ListOutboxParams{Tenant: "default", JobKey: key})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.State != store.OutboxPending {
				t.Errorf("%s: event %s is %s, want pending", key[:12], ev.EventKey, ev.State)
			}
		}
		if key == b.nordlicht && !hasEvent(evs, store.CorrectedEventKey(key, 1)) {
			t.Errorf("no %s event", store.CorrectedEventKey(key, 1))
		}
	}
}

func hasEvent(evs []*store.OutboxEvent, key string) bool {
	for _, ev := range evs {
		if ev.EventKey == key {
			return true
		}
	}
	return false
}
