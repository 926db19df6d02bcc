package extract

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/invx/invx/store"
)

// Candidate is a file discovery would read, with its stat: what
// DiscoverOptions.Known is asked about.
type Candidate struct {
	Path string
	Stat store.FileStat
}

// Known is the stat check's answer about one candidate file.
type Known struct {
	// Digest is the digest recorded for the unchanged file; "" reads it.
	Digest string
	// Settled is the file's enqueue outcome when enqueueing it would
	// write nothing (Found.Settled); nil leaves it to the enqueue.
	Settled *store.EnqueueResult
}

// statBatch is how many candidates one Known call is asked about: one
// batched lookup in the store per chunk, as large as the store's own
// chunk (500), so a no-op rerun of 10k files is 20 statements.
const statBatch = 500

// fileStat is what the stat check compares for fi, a file read with opts
// under the size cap limit: the digest depends on the decoding and the
// cap, so a change of either reads the file again.
func fileStat(fi fs.FileInfo, opts DiscoverOptions, limit int64) store.FileStat {
	return statWith(fi, readOpts(opts, limit))
}

// statWith is fileStat with its read options already written out.
func statWith(fi fs.FileInfo, ropts string) store.FileStat {
	return store.FileStat{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano(), CtimeNS: ctimeNS(fi), Inode: inode(fi),
		ReadOpts: ropts}
}

// readOpts is how a file read with opts under limit is recorded beside its
// stat.
func readOpts(opts DiscoverOptions, limit int64) string {
	return fmt.Sprintf("encoding=%s;max_bytes=%d", opts.Encoding, limit)
}

// readOptsFor is readOpts for a file of this walk read under limit,
// written out once per limit: a walk has one or two limits, and a no-op
// rerun of 100k files formatted the same string 100k times (3 % of its
// CPU).
func (w *discovery) readOptsFor(limit int64) string {
	if s, ok := w.ropts[limit]; ok {
		return s
	}
	if w.ropts == nil {
		w.ropts = map[int64]string{}
	}
	s := readOpts(w.opts, limit)
	w.ropts[limit] = s
	return s
}

// racyWindow: a file modified this recently when it was read is not given
// a stat. Its next change could land in the same tick of a coarse file
// system clock (FAT: 2 s) and keep size and time; a file older than this
// gets a newer time from any later write, as long as the clock does not go
// back and nothing sets the time on purpose (cp -p, rsync -t, touch -d:
// then --rehash). The same rule as git's "racy clean" index entries.
const racyWindow = 3 * time.Second

// settledStat is the stat to record for a file read at now with the read
// options ropts, or nil when it was modified too recently to be trusted
// (racyWindow): it is then read again on the next run, and given a stat
// once it has settled.
func settledStat(fi fs.FileInfo, ropts string, now time.Time) *store.FileStat {
	if now.Sub(fi.ModTime()) < racyWindow {
		return nil
	}
	st := statWith(fi, ropts)
	return &st
}

// candidate queues a file for the stat check; a full queue is checked.
func (w *discovery) candidate(p string, d fs.DirEntry) error {
	fi, err := d.Info()
	if err != nil {
		return w.read(p) // the read reports what is wrong with it
	}
	w.queue = append(w.queue, Candidate{Path: p, Stat: statWith(fi, w.readOptsFor(w.limit(p)))})
	if len(w.queue) >= statBatch {
		return w.check()
	}
	return nil
}

// check asks Known about the queued files, in one call: an unchanged file
// is handed on unread, with its recorded digest; the others are read.
func (w *discovery) check() error {
	if len(w.queue) == 0 {
		return nil
	}
	q := w.queue
	w.queue = w.queue[:0]
	known, err := w.opts.Known(w.ctx, q)
	if err != nil {
		return fmt.Errorf("stat check: %w", err)
	}
	for i, c := range q {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if known[i].Digest == "" {
			if err := w.read(c.Path); err != nil {
				return err
			}
			continue
		}
		f := Found{Path: c.Path, Display: w.display(c.Path), Digest: known[i].Digest, Unread: true, Settled: known[i].Settled}
		if err := w.found(f); err != nil {
			return err
		}
	}
	return nil
}

// KnownFiles is the stat check of invx run (DiscoverOptions.Known): for
// each candidate, the digest recorded for its path when the file's stat
// and read options are the ones recorded with it and the job its text
// makes for this run still exists, else "" (read it). A held job that
// --on-change=process would release is read, as the release needs the
// full enqueue.
//
// The store's one statement per chunk also reads the job each reference
// points at: a reference recorded under this run's schema version names
// this run's job, so an unchanged file of a job that is there is settled
// here (Known.Settled), and never reaches a write transaction. Only a
// reference of another schema version (does this version's job exist?)
// asks the job states again; such a file is enqueued, which decides.
func (r *Runner) KnownFiles(ctx context.Context, cands []Candidate) ([]Known, error) {
	paths := make([]string, len(cands))
	for i, c := range cands {
		paths[i] = c.Path
	}
	var recorded map[string]store.KnownFile
	err := r.withStore(ctx, "stat_check", r.log(), func() error {
		var err error
		recorded, err = r.Store.KnownFiles(ctx, &store.KnownFilesParams{Tenant: r.Tenant, SourceSystem: r.SourceSystem, Paths: paths})
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Known, len(cands))
	keys := make([]string, len(cands))
	var ask []string
	for i, c := range cands {
		kf, ok := recorded[c.Path]
		if !ok || kf.Stat == nil || *kf.Stat != c.Stat {
			continue
		}
		key, err := JobKey(r.Tenant, Transformation, r.Schema.Name, kf.Digest)
		if err != nil {
			return nil, err
		}
		out[i].Digest = kf.Digest
		if kf.JobKey == key {
			if kf.Job == nil || kf.Job.State == store.StateHeld && r.OnChange == store.OnChangeProcess {
				out[i].Digest = "" // pruned under us, or to be released: read it
				continue
			}
			if res, ok := kf.Settled(key, c.Path, r.OnChange); ok {
				out[i].Settled = &res
			}
			continue
		}
		keys[i] = key
		ask = append(ask, key)
	}
	if len(ask) == 0 {
		return out, nil
	}
	var states map[string]store.JobState
	err = r.withStore(ctx, "stat_check", r.log(), func() error {
		var err error
		states, err = r.Store.JobStates(ctx, &store.JobStatesParams{Tenant: r.Tenant, Keys: ask})
		return err
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if keys[i] == "" {
			continue
		}
		st, ok := states[keys[i]]
		if !ok || st.State == store.StateHeld && r.OnChange == store.OnChangeProcess {
			out[i].Digest = ""
		}
	}
	return out, nil
}
