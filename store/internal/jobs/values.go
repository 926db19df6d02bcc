package jobs

import (
	"strings"
)

// Column types a multi-row statement's input table declares, for an engine
// that must type its parameters (Engine.Values).
const (
	colInt   = "bigint"
	colText  = "text"
	colBytes = "bytea"
	colBool  = "boolean"
)

// table is the shape of a multi-row statement's input: a table named v,
// bound row by row as arguments, that the statement joins or inserts from.
type table struct {
	cols  string   // "id, token, att, at": v's column names
	types []string // one per column
}

func newTable(cols string, types ...string) *table {
	if n := strings.Count(cols, ",") + 1; n != len(types) {
		panic("jobs: table " + cols + ": column types do not match") // a bug in a literal below
	}
	return &table{cols: cols, types: types}
}

func (t *table) width() int { return len(t.types) }

// maxRows bounds the rows of one statement: a group's members (at most
// MaxGroupCommit) fit one statement of every kind but the outbox's, whose
// members may bring many events each. 512 rows of the widest table (18
// columns) are 9,216 parameters, well within SQLite's 32,766 and
// PostgreSQL's 65,535.
const maxRows = 512

// bucket is the row count a statement of n rows is padded to: the next
// power of two. A few texts per statement kind then serve every group
// size, each prepared once (SQLite keeps them in its statement cache,
// PostgreSQL's pgx in its own), where a text per size would be parsed and
// planned again for most groups. Padding rows are all NULL: every
// statement ignores them (a NULL key matches nothing; inserts skip them).
func bucket(n int) int {
	b := 1
	for b < n {
		b *= 2
	}
	return b
}

// multiKey names one statement text: body over rows rows.
type multiKey struct {
	body string
	rows int
}

// multi is the statement `WITH v (cols) AS (VALUES ...) body` for rows rows
// of t, built once per (body, rows).
func (c *Core) multi(t *table, rows int, body string) string {
	k := multiKey{body, rows}
	if q, ok := c.texts.Load(k); ok {
		return q.(string)
	}
	q := GroupTag + `WITH v (` + t.cols + `) AS (` + c.E.Values(t.types, rows) + `) ` + body
	c.texts.Store(k, q)
	return q
}

// GroupTag starts every multi-row statement (a group commit's, an
// enqueue's new documents'). An engine that bounds the statements it keeps
// prepared by their parameters keeps these regardless: they are few (a
// handful of kinds, a power of two of rows each) and run on every group or
// batch.
const GroupTag = `/* group */ `

// rowArgs collects the rows of one multi-row statement.
type rowArgs struct {
	t    *table
	args []any
	n    int
}

func (r *rowArgs) add(vals ...any) {
	if len(vals) != r.t.width() {
		panic("jobs: row of " + r.t.cols + ": wrong width") // a bug at the caller
	}
	r.args = append(r.args, vals...)
	r.n++
}

// chunks calls fn with each statement's rows: at most maxRows rows each,
// padded to their bucket with NULLs.
func (r *rowArgs) chunks(fn func(rows int, args []any) error) error {
	w := r.t.width()
	for lo := 0; lo < r.n; lo += maxRows {
		hi := min(lo+maxRows, r.n)
		rows := bucket(hi - lo)
		args := r.args[lo*w : hi*w]
		if pad := (rows - (hi - lo)) * w; pad > 0 {
			args = append(args[:len(args):len(args)], make([]any, pad)...)
		}
		if err := fn(rows, args); err != nil {
			return err
		}
	}
	return nil
}

// ValuesRow is the VALUES list of rows rows of n placeholders each, as
// written where no parameter needs a type: (?, ?), (?, ?).
func ValuesRow(n, rows int) string {
	row := "(" + Placeholders(n) + ")"
	var b strings.Builder
	b.Grow(rows * (len(row) + 2))
	b.WriteString("VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}
