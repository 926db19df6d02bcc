package replay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/invx/invx/extract"
)

// Recorder wraps a provider and writes every answer it gets, errors
// included, into a recording folder that New can play back. It is safe for
// concurrent use when the wrapped provider is.
type Recorder struct {
	inner extract.Provider
	dir   string
	// before is the schema version the folder held answers for when the
	// Recorder was made (RecordedSchema), so that one folder never mixes
	// versions: no replay of such a folder could be faithful.
	before    string
	beforeErr error

	// mu guards claimed: the version the folder's manifest names, once
	// this Recorder has read or written it (claimManifest).
	mu      sync.Mutex
	claimed string
}

var _ extract.Provider = (*Recorder)(nil)

// NewRecorder returns a Recorder that records inner's answers into dir,
// creating it if needed. Files already there for the same (job key,
// attempt) are replaced. Recordings hold model output, which quotes invoice
// text, so like the database they are the owner's only: folders are
// created 0700 and files 0600.
func NewRecorder(inner extract.Provider, dir string) (*Recorder, error) {
	if inner == nil {
		return nil, errors.New("record: no provider to record")
	}
	if dir == "" {
		return nil, errors.New("record: no folder given")
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("create recording folder: %w", pathReason(err))
	}
	before, err := RecordedSchema(dir)
	return &Recorder{inner: inner, dir: dir, before: before, beforeErr: err}, nil
}

// Name is the wrapped provider's name, so attempts still name the provider
// that answered.
func (r *Recorder) Name() string { return r.inner.Name() }

// Extract implements extract.Provider: it calls the wrapped provider,
// records what it returned and returns it unchanged. If the recording
// cannot be written, Extract returns a ClassAuth *extract.ProviderError
// (Category "config") instead, which stops the run: a recording with holes
// cannot be replayed.
func (r *Recorder) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	if err := r.checkSchema(req); err != nil {
		// Refused before the call: an answer that cannot be recorded
		// would be paid for and lost.
		return nil, err
	}
	resp, err := r.inner.Extract(ctx, req)
	if werr := r.write(req, resp, err); werr != nil {
		return nil, &extract.ProviderError{Class: extract.ClassAuth, Category: "config",
			Msg: fmt.Sprintf("record answer for job %s attempt %d: %s", req.JobKey, req.Attempt, extract.Truncate(werr.Error(), 300)),
			Err: werr}
	}
	return resp, err
}

func (r *Recorder) write(req *extract.Request, resp *extract.Response, callErr error) error {
	if err := checkKey(req.JobKey); err != nil {
		return err
	}
	if req.Attempt < 1 {
		return fmt.Errorf("attempt %d is not 1 or more", req.Attempt)
	}
	rec := &record{JobKey: req.JobKey, Attempt: req.Attempt, callMeta: callMeta{Provider: r.inner.Name()}}
	if req.Schema != nil {
		rec.SchemaVersion = req.Schema.Name
	}
	if resp != nil {
		rec.Model, rec.InputTokens, rec.OutputTokens = resp.Model, resp.InputTokens, resp.OutputTokens
		rec.RequestID, rec.HTTPStatus = resp.RequestID, resp.HTTPStatus
		out := string(resp.Output)
		if !utf8.ValidString(out) {
			// A JSON string would replace the bad bytes, and replay would
			// then validate a different answer.
			out, rec.OutputEncoding = base64.StdEncoding.EncodeToString(resp.Output), encodingBase64
		}
		rec.Output = &out
	}
	if callErr != nil {
		rec.Error = errorRecord(callErr)
	}
	if rec.Output == nil && rec.Error == nil {
		// A provider that returns neither breaks the contract; record an
		// empty answer, which is what the runner will validate.
		empty := ""
		rec.Output = &empty
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // fixtures are read by people: keep < > & as they are
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return err
	}
	jobDir := filepath.Join(r.dir, req.JobKey)
	if err := os.MkdirAll(jobDir, dirMode); err != nil {
		return err
	}
	return writeAtomic(jobDir, strconv.Itoa(req.Attempt)+".json", buf.Bytes())
}

// errorRecord keeps what the runner uses of a provider error. The wrapped
// error is dropped: only the ProviderError's Msg, which adapters keep free
// of document text, output and secrets, is stored.
func errorRecord(err error) *recordedError {
	var pe *extract.ProviderError
	if errors.As(err, &pe) {
		msg := pe.Msg
		if msg == "" && pe.Err != nil {
			msg = pe.Err.Error() // what the attempt row shows
		}
		return &recordedError{Class: string(pe.Class), Status: pe.Status, Category: pe.Category,
			Message: extract.Truncate(msg, maxMessage), RetryAfterMS: pe.RetryAfter.Milliseconds()}
	}
	return &recordedError{Class: string(extract.Classify(err)), Message: extract.Truncate(err.Error(), maxMessage)}
}

// The modes of what a Recorder creates (before the umask, which can only
// narrow them).
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// writeAtomic writes name in dir through a temporary file and a rename, so
// a reader (or a crash) never sees half a file.
func writeAtomic(dir, name string, b []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(b); err != nil {
		return err
	}
	if err = f.Chmod(fileMode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// checkSchema refuses to record answers for another schema version than
// the folder already holds, before the provider is called.
func (r *Recorder) checkSchema(req *extract.Request) error {
	if r.beforeErr != nil {
		return &extract.ProviderError{Class: extract.ClassAuth, Category: "config", Msg: "record: " + r.beforeErr.Error()}
	}
	want := wantSchema(req)
	if r.before != "" && want != "" && r.before != want {
		return r.otherSchema(r.before, want)
	}
	if want == "" {
		return nil
	}
	// The manifest is read or written once per Recorder and version, so
	// the folder's version is known to later readers without a scan, and
	// a Recorder of another version (in another process, started before
	// this one's first answer) is refused.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimed == "" {
		got, err := claimManifest(r.dir, want)
		if err != nil {
			return &extract.ProviderError{Class: extract.ClassAuth, Category: "config", Msg: "record: " + err.Error()}
		}
		r.claimed = got
	}
	if r.claimed != want {
		return r.otherSchema(r.claimed, want)
	}
	return nil
}

// otherSchema is the one-line error for an answer of version want to be
// recorded into the folder, which holds answers of version have.
func (r *Recorder) otherSchema(have, want string) error {
	return &extract.ProviderError{Class: extract.ClassAuth, Category: "config",
		Msg: fmt.Sprintf("record: recording folder %s holds answers for schema %s, not %s: record %s into another folder",
			r.dir, have, want, want)}
}
