package jobs

import (
	"context"
	"fmt"
	"sort"

	"github.com/invx/invx/store"
)

// A source system and the read options of a file stat are a few distinct
// strings that every jobs and sources row named in full, about 30 bytes
// each; since migration 017 they are kept once in labels and rows name
// them by id (docs/storage.md). Statements take the string as before and
// turn it into its id in SQL (labelID), so no id is cached in the process
// and a rolled-back transaction leaves nothing stale behind.

// labelID is the id of the label given as its argument, NULL when there
// is none (a lookup of a source system never written finds no rows).
const labelID = `(SELECT id FROM labels WHERE label = ?)`

// addLabels adds, deferred and before any statement that names them, the
// labels the documents of order will be written with. A label that exists
// is left as it is; the values are sorted, so two transactions adding the
// same new labels lock them in the same order.
func addLabels(ctx context.Context, tx Tx, docs []store.Document, order []int) error {
	seen := map[string]bool{}
	var args []any
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			args = append(args, s)
		}
	}
	for _, i := range order {
		add(docs[i].SourceSystem)
		if st := docs[i].Stat; st != nil {
			add(st.ReadOpts)
		}
	}
	if len(args) == 0 {
		return nil
	}
	sort.Slice(args, func(a, b int) bool { return args[a].(string) < args[b].(string) })
	q := `INSERT INTO labels (label) VALUES (?)`
	for range args[1:] {
		q += `, (?)`
	}
	if err := tx.Defer(ctx, q+` ON CONFLICT (label) DO NOTHING`, args...); err != nil {
		return fmt.Errorf("add labels: %w", err)
	}
	return nil
}
