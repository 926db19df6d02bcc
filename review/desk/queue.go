package desk

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/invx/invx/review"
)

// kindCount is one group of the queue with its size.
type kindCount struct {
	Kind     string
	Count    int
	Selected bool
}

// queueRow is one entry as the queue page shows it.
type queueRow struct {
	review.Item
	// First marks the first row of its group on the page (a heading).
	First bool
	Why   string
	Age   string
}

type queueView struct {
	Kinds      []kindCount
	Kind       string
	Total      int // entries of the selected kind(s)
	All        int // entries of every kind
	Rows       []queueRow
	Page       int
	Pages      int
	PrevPage   int
	NextPage   int
	RenderedAt string
}

// queue renders the open items, grouped by kind in review.Kinds order,
// ?kind= keeping one group, ?page= paging through it.
func (d *Desk) queue(w http.ResponseWriter, r *http.Request) {
	kind := r.URL.Query().Get("kind")
	if kind != "" && !slices.Contains(review.Kinds, kind) {
		http.Error(w, fmt.Sprintf("400 bad request: unknown kind %q", kind), http.StatusBadRequest)
		return
	}
	// Open reads the whole queue in a fixed number of queries; only the
	// page's entries are filled with their jobs and values.
	all, err := review.Open(r.Context(), d.cfg.Store, d.cfg.Tenant, "")
	if err != nil {
		d.fail(w, r, err)
		return
	}
	order := func(k string) int { return slices.Index(review.Kinds, k) }
	slices.SortStableFunc(all, func(a, b review.Item) int { return cmp.Compare(order(a.State), order(b.State)) })
	v := &queueView{Kind: kind, All: len(all)}
	counts := map[string]int{}
	var items []review.Item
	for _, it := range all {
		counts[it.State]++
		if kind == "" || it.State == kind {
			items = append(items, it)
		}
	}
	for _, k := range review.Kinds {
		if counts[k] > 0 || k == kind {
			v.Kinds = append(v.Kinds, kindCount{Kind: k, Count: counts[k], Selected: k == kind})
		}
	}
	v.Total = len(items)
	size := d.cfg.PageSize
	v.Pages = max(1, (len(items)+size-1)/size)
	v.Page = 1
	if p, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil {
		v.Page = min(max(p, 1), v.Pages)
	}
	from := (v.Page - 1) * size
	page := items[from:min(from+size, len(items))]
	if err := review.Fill(r.Context(), d.cfg.Store, page); err != nil {
		d.fail(w, r, err)
		return
	}
	now := d.cfg.Now()
	for i, it := range page {
		v.Rows = append(v.Rows, queueRow{Item: it, First: i == 0 || page[i-1].State != it.State, Why: it.Why(), Age: age(now, it.Opened)})
	}
	if v.Page > 1 {
		v.PrevPage = v.Page - 1
	}
	if v.Page < v.Pages {
		v.NextPage = v.Page + 1
	}
	v.RenderedAt = now.UTC().Format(time.RFC3339)
	d.render(w, r, "queue.html", v)
}

// age says how long an item has been waiting, in the largest whole unit.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
}
