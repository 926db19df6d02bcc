// Package replay records raw provider answers and plays them back, so tests
// and CI can run the real pipeline (validation, repair re-asks, retries,
// commits) over fixtures with no network and no model.
//
// A recording is a folder with one file per provider call:
//
//	DIR/<job_key>/<attempt>.json
//
// where attempt is the 1-based attempt number the runner gave the call.
// Each file holds one JSON object:
//
//	{"job_key": "...", "attempt": 1, "schema_version": "invoice-v2",
//	 "provider": "ollama", "model": "llama3.2",
//	 "input_tokens": 412, "output_tokens": 187, "request_id": "", "http_status": 200,
//	 "output": "<the raw answer as a JSON string>" or null,
//	 "error": null or {"class": "transient", "status": 503, "category": "",
//	                   "message": "...", "retry_after_ms": 0}}
//
// "output" is null when the provider returned no response at all. An answer
// that is not valid UTF-8 is stored base64-encoded, with
// "output_encoding": "base64"; the field is absent otherwise. A Recorder
// writes these files around any provider; a Provider answers from them.
//
// "schema_version" is the version the answer was asked for; recordings made
// before it was written lack it. A Provider refuses to answer a request for
// another version than the folder was recorded with (see RecordedSchema):
// an answer is only ever validated as the version it was given for.
//
// Replay is faithful only for runs it is given the same way: the same
// documents, tenant, schema version and retry settings (--repair,
// --max-attempts), so the runner asks for the same attempts. A recording of
// a run that was killed mid-call has a gap where the lost call was.
package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/invx/invx/extract"
	"github.com/invx/invx/internal/readbuf"
)

// record is one recorded provider call, as stored (keys in this order:
// answersSchema reads schema_version before the output).
type record struct {
	JobKey  string `json:"job_key"`
	Attempt int    `json:"attempt"`
	callMeta
	Output         *string        `json:"output"`
	OutputEncoding string         `json:"output_encoding,omitempty"`
	Error          *recordedError `json:"error"`
}

// callMeta is what a record says about the call besides its answer.
type callMeta struct {
	SchemaVersion string `json:"schema_version,omitempty"`
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	InputTokens   int64  `json:"input_tokens"`
	OutputTokens  int64  `json:"output_tokens"`
	RequestID     string `json:"request_id"`
	HTTPStatus    int    `json:"http_status"`
}

// recordedError is a *extract.ProviderError as stored: everything but the
// wrapped error, which may hold what a message must not.
type recordedError struct {
	Class        string `json:"class"`
	Status       int    `json:"status"`
	Category     string `json:"category"`
	Message      string `json:"message"`
	RetryAfterMS int64  `json:"retry_after_ms"`
}

// encodingBase64 marks an output stored base64-encoded.
const encodingBase64 = "base64"

// maxMessage bounds a recorded error message; the runner keeps less.
const maxMessage = 1000

// maxFile bounds a recording file: an answer is at most what a provider
// reads (8 MiB for the HTTP adapters), stored escaped.
const maxFile = 32 << 20

var classes = []extract.Class{extract.ClassTransient, extract.ClassRateLimited, extract.ClassRejected,
	extract.ClassPermanent, extract.ClassAuth, extract.ClassInterrupted}

// keyName reports whether a job key may be a folder name, as
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ (TestKeyNameMatchesRegexp): invx's
// keys are lowercase hex, and nothing may climb out of the recording
// folder. Written out because the regexp was most of checkKey's time.
func keyName(key string) bool {
	if len(key) == 0 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// attemptNumber is the attempt an attempt's file name gives, when the name
// is one: ^([1-9][0-9]{0,8})\.json$ (TestAttemptNumberMatchesRegexp).
// Written out because the regexp was most of scanning a recording folder.
func attemptNumber(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, ".json")
	if !ok || len(digits) == 0 || len(digits) > 9 || digits[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func checkKey(key string) error {
	if !keyName(key) || strings.Contains(key, "..") {
		return fmt.Errorf("job key %q cannot name a recording folder", extract.Truncate(key, 80))
	}
	return nil
}

func attemptFile(dir, key string, attempt int) string {
	return filepath.Join(dir, key, strconv.Itoa(attempt)+".json")
}

// Provider answers from a recording folder: it returns the recorded
// response, or re-creates the recorded *extract.ProviderError, for each
// (job key, attempt). It never calls a model and is safe for concurrent
// use.
type Provider struct {
	dir string
	// recorded is the folder's schema version, looked up on first use:
	// RecordedSchema's answer and error.
	recorded func() (string, error)
}

var _ extract.Provider = (*Provider)(nil)

// New returns a Provider that answers from dir, which must be an existing
// folder. The files are read when asked for, so a bad one fails only the
// job it belongs to.
func New(dir string) (*Provider, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config",
			Msg: fmt.Sprintf("recording folder %s: %v", dir, pathReason(err)), Err: err}
	}
	if !fi.IsDir() {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "config",
			Msg: fmt.Sprintf("recording folder %s: not a folder", dir)}
	}
	return &Provider{dir: dir, recorded: sync.OnceValues(func() (string, error) { return RecordedSchema(dir) })}, nil
}

// NewRecorded is New for a folder whose RecordedSchema the caller has read
// already (version, with no error): the folder is not scanned again.
func NewRecorded(dir, version string) (*Provider, error) {
	p, err := New(dir)
	if err != nil {
		return nil, err
	}
	p.recorded = func() (string, error) { return version, nil }
	return p, nil
}

// Name implements extract.Provider.
func (*Provider) Name() string { return "replay" }

// Extract implements extract.Provider. A job with no recording, or an
// attempt that was not recorded, is ClassPermanent with Category
// "no_recording"; a file that does not hold a valid recording is
// ClassPermanent with Category "corrupt_recording" and a message naming
// the file.
func (p *Provider) Extract(ctx context.Context, req *extract.Request) (*extract.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, extract.TransportError(ctx, err)
	}
	if err := p.checkSchema(req); err != nil {
		return nil, err
	}
	if err := checkKey(req.JobKey); err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "no_recording", Msg: err.Error()}
	}
	jobDir := filepath.Join(p.dir, req.JobKey)
	path := attemptFile(p.dir, req.JobKey, req.Attempt)
	rec, err := readRecord(path, req.JobKey, req.Attempt)
	if errors.Is(err, fs.ErrNotExist) {
		// The job's folder is looked at only when the file is missing, to
		// say which of the two is: a stat per call was a tenth of a
		// replayed call.
		if _, serr := os.Stat(jobDir); errors.Is(serr, fs.ErrNotExist) {
			return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "no_recording",
				Msg: fmt.Sprintf("no recording for job %s in %s", req.JobKey, p.dir)}
		}
		msg := fmt.Sprintf("no recording for attempt %d of job %s", req.Attempt, req.JobKey)
		if have := recordedAttempts(jobDir); len(have) > 0 && have[len(have)-1] > req.Attempt {
			// A gap, not the end: say what there is.
			msg += fmt.Sprintf(" (recorded attempts: %s)", joinInts(have, 10))
		}
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "no_recording", Msg: msg}
	}
	if err != nil {
		return nil, &extract.ProviderError{Class: extract.ClassPermanent, Category: "corrupt_recording",
			Msg: fmt.Sprintf("corrupt recording %s: %s", path, extract.Truncate(err.Error(), 200))}
	}
	if want := wantSchema(req); rec.SchemaVersion != "" && want != "" && rec.SchemaVersion != want {
		return nil, mismatch(path, rec.SchemaVersion, want)
	}
	return rec.replay()
}

// replay turns a validated record back into what the provider returned.
func (r *record) replay() (*extract.Response, error) {
	var resp *extract.Response
	if r.Output != nil {
		out := []byte(*r.Output)
		if r.OutputEncoding == encodingBase64 {
			// Checked by validate.
			out, _ = base64.StdEncoding.DecodeString(*r.Output)
		}
		resp = &extract.Response{Output: out, Model: r.Model, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			RequestID: r.RequestID, HTTPStatus: r.HTTPStatus}
	}
	if r.Error == nil {
		return resp, nil
	}
	e := r.Error
	return resp, &extract.ProviderError{Class: extract.Class(e.Class), Status: e.Status, Category: e.Category,
		Msg: e.Message, RetryAfter: time.Duration(e.RetryAfterMS) * time.Millisecond}
}

// readRecord reads and strictly validates the recording at path, which must
// be of attempt of job key. A missing file is fs.ErrNotExist.
func readRecord(path, key string, attempt int) (*record, error) {
	buf := readbuf.Get()
	defer readbuf.Put(buf)
	b, err := readFile(path, (*buf)[:0], maxFile+1)
	*buf = b
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fs.ErrNotExist
	}
	if err != nil {
		return nil, pathReason(err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("larger than %d bytes", maxFile)
	}
	rec, err := decodeRecord(b)
	if err != nil {
		return nil, err
	}
	if rec.JobKey != key {
		return nil, fmt.Errorf("job_key %q does not match its folder", extract.Truncate(rec.JobKey, 80))
	}
	if rec.Attempt != attempt {
		return nil, fmt.Errorf("attempt %d does not match its file name", rec.Attempt)
	}
	return rec, nil
}

// wireRecord is a record as decoded: the keys every record must have are
// pointers or raw values, so one pass both decodes the file and tells a
// missing key from a null one.
type wireRecord struct {
	JobKey  *string `json:"job_key"`
	Attempt *int    `json:"attempt"`
	callMeta
	Output         json.RawMessage `json:"output"`
	OutputEncoding string          `json:"output_encoding"`
	Error          json.RawMessage `json:"error"`
}

// decodeRecord decodes one record: one JSON object, no unknown or missing
// keys, values in range. A record as a Recorder writes it takes the fast
// path; anything else, and every corrupt file, the strict one.
func decodeRecord(b []byte) (*record, error) {
	if rec, ok := decodeRecordFast(b); ok {
		return rec, rec.validate()
	}
	return decodeRecordStrict(b)
}

// decodeRecordStrict is decodeRecord by encoding/json, whose errors say
// what is wrong with a file.
func decodeRecordStrict(b []byte) (*record, error) {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' && !bytes.HasPrefix(t, []byte("null")) {
		var v any
		return nil, fmt.Errorf("not a JSON object: %v", cmp.Or(json.Unmarshal(b, &v), error(errors.New("not an object"))))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w wireRecord
	if err := dec.Decode(&w); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	for _, k := range []struct {
		name    string
		present bool
	}{{"job_key", w.JobKey != nil}, {"attempt", w.Attempt != nil}, {"output", w.Output != nil}, {"error", w.Error != nil}} {
		if !k.present {
			return nil, fmt.Errorf("no %q key", k.name)
		}
	}
	rec := record{JobKey: *w.JobKey, Attempt: *w.Attempt, callMeta: w.callMeta, OutputEncoding: w.OutputEncoding}
	if err := json.Unmarshal(w.Output, &rec.Output); err != nil {
		return nil, err
	}
	if !bytes.Equal(w.Error, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(w.Error))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec.Error); err != nil {
			return nil, err
		}
	}
	return &rec, rec.validate()
}

func (r *record) validate() error {
	switch {
	case r.JobKey == "":
		return errors.New("empty job_key")
	case r.Attempt < 1:
		return fmt.Errorf("attempt %d is not 1 or more", r.Attempt)
	case r.InputTokens < 0 || r.OutputTokens < 0:
		return errors.New("negative token count")
	case r.HTTPStatus != 0 && (r.HTTPStatus < 100 || r.HTTPStatus > 599):
		return fmt.Errorf("http_status %d out of range", r.HTTPStatus)
	case r.Output == nil && r.Error == nil:
		return errors.New("neither an output nor an error")
	case r.Output == nil && r.OutputEncoding != "":
		return errors.New("output_encoding without an output")
	}
	switch r.OutputEncoding {
	case "":
	case encodingBase64:
		if _, err := base64.StdEncoding.DecodeString(*r.Output); err != nil {
			return errors.New("output is not valid base64")
		}
	default:
		return fmt.Errorf("output_encoding %q is not %q", extract.Truncate(r.OutputEncoding, 20), encodingBase64)
	}
	if e := r.Error; e != nil {
		switch {
		case !slices.Contains(classes, extract.Class(e.Class)):
			return fmt.Errorf("error.class %q is not a known class", extract.Truncate(e.Class, 40))
		case e.Status != 0 && (e.Status < 100 || e.Status > 599):
			return fmt.Errorf("error.status %d out of range", e.Status)
		case e.RetryAfterMS < 0:
			return errors.New("negative error.retry_after_ms")
		}
	}
	return nil
}

// recordedAttempts lists the attempt numbers recorded in jobDir, sorted.
func recordedAttempts(jobDir string) []int {
	entries, _ := os.ReadDir(jobDir)
	var out []int
	for _, e := range entries {
		if n, ok := attemptNumber(e.Name()); ok && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func joinInts(ns []int, most int) string {
	parts := make([]string, 0, min(len(ns), most)+1)
	for i, n := range ns {
		if i == most {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ", ")
}

// pathReason drops the path from an *fs.PathError: messages name the path
// themselves.
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
