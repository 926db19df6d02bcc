package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/invx/invx/store"
	"github.com/invx/invx/store/internal/driver"
)

// known is what one batched lookup found about a batch's documents before
// any of them is written: their jobs by key and their source references by
// (source system, path). A no-op rerun is then decided from memory, with
// no statement per document.
type known struct {
	jobs    map[string]knownJob
	sources map[sourceRef]knownSource
}

// knownSource is a path's reference: the digest it was last seen with and
// the file's stat beside it, and whether a skip of the path is recorded.
type knownSource struct {
	digest, jobKey string
	stat           *store.FileStat
	skipped        bool
}

type knownJob struct {
	id          int64
	state, path string
	prevKey     string
}

type sourceRef struct{ system, path string }

// lookupBatch reads the source references the batch's documents name,
// joined to the job each points at (one statement per source system), then
// the jobs of the documents whose key is not the one their reference names
// (a new or changed text, another schema version; none on a rerun of
// unchanged files). q is a transaction, or the read pool for the enqueue's
// read-only pass. refOnly asks only for the jobs of documents whose path
// has a reference: the read-only pass settles no other, so a first run's
// chunk of new paths costs it one statement that finds nothing.
func (c *Core) lookupBatch(ctx context.Context, q Querier, tenant string, docs []store.Document, order []int, refOnly bool) (*known, error) {
	k := &known{jobs: make(map[string]knownJob, len(order)), sources: make(map[sourceRef]knownSource, len(order))}
	paths := map[string][]string{} // source system -> paths
	for _, i := range order {
		d := &docs[i]
		paths[d.SourceSystem] = append(paths[d.SourceSystem], d.Path)
	}
	for system, list := range paths {
		put := func(p string, ks knownSource, j *knownJob) {
			k.sources[sourceRef{system, p}] = ks
			if j != nil {
				k.jobs[ks.jobKey] = *j
			}
		}
		if c.E.BytewiseText() {
			// As KnownFiles: the chunk's paths as one key range.
			done, err := knownRange(ctx, q, tenant, system, list, put)
			if err != nil {
				return nil, fmt.Errorf("look up sources: %w", err)
			}
			if done {
				continue
			}
		}
		args := make([]any, 0, len(list)+2)
		args = append(args, tenant, system)
		for _, p := range list {
			args = append(args, p)
		}
		if err := querySources(ctx, q, args, put); err != nil {
			return nil, fmt.Errorf("look up sources: %w", err)
		}
	}
	keys := []any{tenant}
	asked := map[string]bool{}
	for _, i := range order {
		key := docs[i].JobKey
		if _, ref := k.sources[sourceRef{docs[i].SourceSystem, docs[i].Path}]; refOnly && !ref {
			continue
		}
		if _, found := k.jobs[key]; !found && !asked[key] {
			asked[key] = true
			keys = append(keys, bin(key))
		}
	}
	if len(keys) == 1 {
		return k, nil
	}
	rows, err := q.Query(ctx, `SELECT job_key, id, state, source_path, coalesce(prev_job_key, '')
		FROM jobs WHERE tenant = ? AND job_key IN (`+Placeholders(len(keys)-1)+`)`, keys...)
	err = each(rows, err, func(r Rows) error {
		var key string
		var j knownJob
		if err := r.Scan(keyOut(&key), &j.id, &j.state, &j.path, keyOut(&j.prevKey)); err != nil {
			return err
		}
		k.jobs[key] = j
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look up jobs: %w", err)
	}
	return k, nil
}

// settled reports the outcome of a document whose enqueue would change
// nothing: its job exists (so the insert would find it and the change
// check would not matter), its path already points at its text (so the
// reference would not be rewritten), and no held job is to be released.
// ok is false when the document must take the full path. restat is set
// when the reference's file stat is to be brought up to date.
func (k *known) settled(p *store.EnqueueParams, d *store.Document) (res store.EnqueueResult, restat, ok bool) {
	j, found := k.jobs[d.JobKey]
	if !found {
		return res, false, false
	}
	if j.state == store.StateHeld && p.OnChange == store.OnChangeProcess {
		return res, false, false // existingJob may release it
	}
	outcome := driver.ExistingOutcome(j.state, j.path, d.Path)
	if outcome != store.EnqueueHeld {
		// recordSource would insert or rewrite the reference unless the
		// path already points at this text.
		src, seen := k.sources[sourceRef{d.SourceSystem, d.Path}]
		if !seen || src.digest != d.Digest {
			return res, false, false
		}
		restat = d.Stat != nil && (src.stat == nil || *src.stat != *d.Stat)
	}
	return store.EnqueueResult{Outcome: outcome, JobID: j.id, JobKey: d.JobKey, PrevJobKey: j.prevKey}, restat, true
}

// restat records the file stat of a reference that already points at the
// document's text; the digest guard keeps a stat beside only the digest it
// was read with.
func restat(ctx context.Context, tx Tx, tenant string, d *store.Document) error {
	size, mtime, ctime, inode, opts := statArgs(d.Stat)
	return tx.Defer(ctx, `UPDATE sources SET file_size = ?, file_mtime_ns = ?, file_ctime_ns = ?, file_inode = ?,
			read_opts_id = `+labelID+`
		WHERE tenant = ? AND system_id = `+labelID+` AND path = ? AND digest = ?`,
		size, mtime, ctime, inode, opts, tenant, d.SourceSystem, d.Path, bin(d.Digest))
}

// statArgs are a stat's columns, NULL when there is none.
func statArgs(st *store.FileStat) (size, mtime, ctime, inode *int64, opts *string) {
	if st == nil {
		return nil, nil, nil, nil, nil
	}
	in := int64(st.Inode) // the 64 bits as they are
	return &st.Size, &st.MtimeNS, &st.CtimeNS, &in, &st.ReadOpts
}

// querySources reads the references of args' paths (tenant, source system,
// paths...) with their file stats, whether a skip of the path is recorded
// and the job each names (nil when it is not there).
func querySources(ctx context.Context, q Querier, args []any, fn func(path string, ks knownSource, j *knownJob)) error {
	// Padded to a full chunk with the last path again (an IN list ignores
	// repeats): one statement text, kept prepared (LookupTag).
	for n := len(args) - 2; n > 0 && n < enqueueBatch; n++ {
		args = append(args, args[len(args)-1])
	}
	rows, err := q.Query(ctx, knownFilesQuery(len(args)-2), args...)
	k := newKnownScan()
	return each(rows, err, func(r Rows) error { return k.row(r, fn) })
}

// knownScan reads rows of knownFilesColumns into the same values row
// after row: a pointer per nullable column, a key scanner per key column
// and the argument list, made anew for every row, were some twenty of the
// forty allocations a row of a no-op rerun's lookup cost.
type knownScan struct {
	path, digest, jobKey, prev    string
	size, mtime, ctime, inode, id sql.NullInt64
	opts, state, jobPath          sql.NullString
	skipped                       int64
	keys                          [3]hexOut
	dest                          []any
}

func newKnownScan() *knownScan {
	k := &knownScan{}
	k.keys = [3]hexOut{{&k.digest}, {&k.jobKey}, {&k.prev}}
	k.dest = []any{&k.path, &k.keys[0], &k.size, &k.mtime, &k.ctime, &k.inode, &k.opts,
		&k.keys[1], &k.id, &k.state, &k.jobPath, &k.keys[2], &k.skipped}
	return k
}

// row reads the current row and hands it to fn.
func (k *knownScan) row(r Rows, fn func(path string, ks knownSource, j *knownJob)) error {
	if err := r.Scan(k.dest...); err != nil {
		return err
	}
	ks := knownSource{digest: k.digest, jobKey: k.jobKey, skipped: k.skipped != 0}
	// A stat recorded before migration 018 has no ctime: that file is read
	// once more, and recorded with one.
	if k.size.Valid && k.mtime.Valid && k.ctime.Valid && k.inode.Valid && k.opts.Valid {
		ks.stat = &store.FileStat{Size: k.size.Int64, MtimeNS: k.mtime.Int64, CtimeNS: k.ctime.Int64,
			Inode: uint64(k.inode.Int64), ReadOpts: k.opts.String}
	}
	var j *knownJob
	if k.id.Valid && k.state.Valid && k.jobPath.Valid {
		j = &knownJob{id: k.id.Int64, state: k.state.String, path: k.jobPath.String, prevKey: k.prev}
	}
	fn(k.path, ks, j)
	return nil
}

// KnownFiles implements store.Store. One statement per chunk of paths
// reads each reference, the job it points at and whether a skip of the path
// is recorded, outside any transaction: a no-op rerun's stat check and its
// enqueue decision are this one read, with no write transaction behind it.
// Where text keys compare as bytes the chunk is read as the key range from
// its least to its greatest path (knownRange).
func (c *Core) KnownFiles(ctx context.Context, p *store.KnownFilesParams) (map[string]store.KnownFile, error) {
	out := make(map[string]store.KnownFile, len(p.Paths))
	add := func(path string, ks knownSource, j *knownJob) {
		kf := store.KnownFile{Digest: ks.digest, Stat: ks.stat, JobKey: ks.jobKey, Skipped: ks.skipped}
		if j != nil {
			kf.Job = &store.KnownJob{ID: j.id, State: j.state, SourcePath: j.path, PrevJobKey: j.prevKey}
		}
		out[path] = kf
	}
	for start := 0; start < len(p.Paths); start += enqueueBatch {
		chunk := p.Paths[start:min(start+enqueueBatch, len(p.Paths))]
		if c.E.BytewiseText() {
			done, err := knownRange(ctx, c.E.Read(), p.Tenant, p.SourceSystem, chunk, add)
			if err != nil {
				return nil, fmt.Errorf("read source references: %w", err)
			}
			if done {
				continue
			}
		}
		args := make([]any, 0, len(chunk)+2)
		args = append(args, p.Tenant, p.SourceSystem)
		for _, path := range chunk {
			args = append(args, path)
		}
		if err := querySources(ctx, c.E.Read(), args, add); err != nil {
			return nil, fmt.Errorf("read source references: %w", err)
		}
	}
	return out, nil
}

// knownRange reads the references of the paths from chunk's least to its
// greatest in one range of the sources key: a walk hands over a folder's
// files in order, so the range holds the chunk and little else, and it is
// read in key order instead of probed once per path from a list of bound
// arguments (binding 500 paths and building the list's index was most of
// the statement). A range that holds many more references than the chunk
// (the chunk spans folders the store knows far more files of) stops at a
// bound and reports done false: the caller asks by path instead.
func knownRange(ctx context.Context, q Querier, tenant, system string, chunk []string, fn func(path string, ks knownSource, j *knownJob)) (done bool, err error) {
	lo, hi := chunk[0], chunk[0]
	asked := make(map[string]struct{}, len(chunk))
	for _, p := range chunk {
		lo, hi = min(lo, p), max(hi, p)
		asked[p] = struct{}{}
	}
	limit := 2*len(chunk) + 64
	n := 0
	rows, err := q.Query(ctx, knownRangeQuery, tenant, system, lo, hi, limit)
	k := newKnownScan()
	err = each(rows, err, func(r Rows) error {
		n++
		return k.row(r, func(path string, ks knownSource, j *knownJob) {
			if _, ok := asked[path]; ok {
				fn(path, ks, j)
			}
		})
	})
	return err == nil && n < limit, err
}

// knownRangeQuery is knownFilesQuery over a range of paths (tenant, source
// system, least and greatest path, row bound as arguments).
const knownRangeQuery = `SELECT ` + knownFilesColumns + `
		WHERE s.tenant = ? AND l.label = ? AND s.path BETWEEN ? AND ? LIMIT ?`

// LookupTag starts the batched lookup of source references
// (knownFilesQuery). An engine that bounds the statements it keeps
// prepared by their parameters keeps this one regardless: it is one text
// (querySources pads the list to a full chunk) and runs once per chunk of
// every rerun, where parsing it again was about 6 % of a --rehash rerun's
// CPU.
const LookupTag = `/* lookup */ `

// knownFilesQuery reads n paths' references (tenant, source system, paths
// as arguments) with the columns knownScan reads, then the job the
// reference names and a recorded skip of the path. The source system is
// looked up in labels once; each row is then a probe of the sources key,
// the labels, jobs (sources.job_id) and skipped_inputs keys: no table
// scan, whatever the store holds.
func knownFilesQuery(n int) string {
	return LookupTag + `SELECT ` + knownFilesColumns + `
		WHERE s.tenant = ? AND l.label = ? AND s.path IN (` + Placeholders(n) + `)`
}

// knownFilesColumns are the columns and tables of both lookups of source
// references: knownScan reads them.
const knownFilesColumns = `s.path, s.digest, s.file_size, s.file_mtime_ns, s.file_ctime_ns, s.file_inode, o.label, j.job_key,
			j.id, j.state, j.source_path, j.prev_job_key,
			CASE WHEN EXISTS (SELECT 1 FROM skipped_inputs k WHERE k.tenant = s.tenant AND k.source_system = l.label
				AND k.path = s.path) THEN 1 ELSE 0 END
		FROM labels l JOIN sources s ON s.system_id = l.id LEFT JOIN labels o ON o.id = s.read_opts_id
			LEFT JOIN jobs j ON j.id = s.job_id`

// clearSkipped resolves, in one statement per source system, earlier skips
// of the batch's paths: they were read and enqueued now.
func clearSkipped(ctx context.Context, tx Tx, tenant string, docs []store.Document, order []int) error {
	paths := map[string][]any{}
	for _, i := range order {
		d := &docs[i]
		if paths[d.SourceSystem] == nil {
			paths[d.SourceSystem] = []any{tenant, d.SourceSystem}
		}
		paths[d.SourceSystem] = append(paths[d.SourceSystem], d.Path)
	}
	for _, args := range paths {
		if err := tx.Defer(ctx, `DELETE FROM skipped_inputs WHERE tenant = ? AND source_system = ? AND path IN (`+
			Placeholders(len(args)-2)+`)`, args...); err != nil {
			return fmt.Errorf("clear skipped inputs: %w", err)
		}
	}
	return nil
}
