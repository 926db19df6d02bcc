package cmd

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/invx/invx/extract"
)

// batchBar is the progress bar of a batch run: the requests the provider
// reports done over those submitted, and each batch's state.
type batchBar struct {
	w      io.Writer
	bar    *progressbar.ProgressBar
	done   map[int64]int
	total  map[int64]int
	status map[int64]string
}

func newBatchBar(w io.Writer) *batchBar {
	return &batchBar{w: w, done: map[int64]int{}, total: map[int64]int{}, status: map[int64]string{}}
}

// update takes one poll of one batch (called from the poll loop only).
func (p *batchBar) update(e extract.BatchProgress) {
	p.done[e.Batch], p.total[e.Batch], p.status[e.Batch] = e.Done, e.Total, e.Status
	done, total := 0, 0
	for id := range p.total {
		done, total = done+p.done[id], total+p.total[id]
	}
	if p.bar == nil {
		// Not throttled: a poll comes every few seconds at most.
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.describe()),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.ChangeMax(max(total, 1))
	p.bar.Describe(p.describe())
	_ = p.bar.Set(done)
}

// describe names each batch's state: "requests, batch 12 in_progress, 13
// validating".
func (p *batchBar) describe() string {
	ids := make([]int64, 0, len(p.status))
	for id := range p.status {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%d %s", id, safeCell(p.status[id]))
	}
	return "requests, batch " + strings.Join(parts, ", ")
}

func (p *batchBar) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
