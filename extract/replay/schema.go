package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/invx/invx/extract"
)

// evalFile is the file invx eval --record writes beside the recordings
// (eval.RecordingFile); only its schema_version is read here.
const evalFile = "invx-eval.json"

// RecordedSchema returns the schema version the recording folder dir was
// made with: the schema_version of its invx-eval.json when it has one (a
// recording of invx eval), else the one its manifest names (manifestFile,
// written by a Recorder), else that of its recorded answers, read one by
// one (recordings made before the manifest). It is "" for a folder that
// names none, such as a recording made before versions were recorded;
// replaying it is then not checked. Answers recorded for two versions in
// one folder are an error: no replay of it can be faithful.
func RecordedSchema(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, evalFile))
	switch {
	case err == nil:
		var settings struct {
			SchemaVersion string `json:"schema_version"`
		}
		if err := json.Unmarshal(b, &settings); err != nil {
			return "", fmt.Errorf("recording folder %s: %s: %v", dir, evalFile, err)
		}
		if settings.SchemaVersion != "" {
			return settings.SchemaVersion, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("recording folder %s: %s: %w", dir, evalFile, pathReason(err))
	}
	if v, err := readManifest(dir); err != nil || v != "" {
		return v, err
	}
	return answersSchema(dir)
}

// answersSchema reads the schema_version of every recorded answer under
// dir. Unreadable files are skipped: replaying them reports them, per job.
func answersSchema(dir string) (string, error) {
	jobs, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("recording folder %s: %w", dir, pathReason(err))
	}
	var seen []string
	for _, j := range jobs {
		if !j.IsDir() || checkKey(j.Name()) != nil {
			continue
		}
		for _, n := range recordedAttempts(filepath.Join(dir, j.Name())) {
			v := recordSchema(attemptFile(dir, j.Name(), n))
			if v == "" || slices.Contains(seen, v) {
				continue
			}
			seen = append(seen, v)
		}
	}
	switch len(seen) {
	case 0:
		return "", nil
	case 1:
		return seen[0], nil
	}
	slices.Sort(seen)
	return "", fmt.Errorf("recording folder %s holds answers for schemas %s and %s; record each version into its own folder",
		dir, seen[0], seen[1])
}

// recordSchema is the schema_version of the recording at path, read from
// the record's leading keys (a Recorder writes it before the output) without
// decoding the rest, which Extract checks strictly, per job; "" when the
// file cannot be read or names none.
func recordSchema(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	// A Recorder writes schema_version third, so the first read of a file
	// nearly always holds it: leadingSchema reads it from there, and the
	// tokenizer only gets the files it cannot read so (from their start).
	var head [4096]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return tokenSchema(io.MultiReader(bytes.NewReader(head[:n]), errReader{err}))
	}
	if v, ok := leadingSchema(head[:n]); ok {
		return v
	}
	return tokenSchema(io.MultiReader(bytes.NewReader(head[:n]), f))
}

// errReader fails every read with err, as the file did.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// leadingSchema reads the schema_version of a record from the start of its
// file, b, as tokenSchema would, when every key before it is plain and
// every value a plain string, an integer or null; false when it cannot
// tell, and tokenSchema must.
func leadingSchema(b []byte) (string, bool) {
	p := recParser{b: b}
	p.space()
	if !p.byte('{') {
		return "", false
	}
	for {
		p.space()
		key, ok := p.plainString()
		if !ok {
			return "", false
		}
		p.space()
		if !p.byte(':') {
			return "", false
		}
		p.space()
		if key == "schema_version" {
			return p.plainString()
		}
		switch {
		case p.peek() == '"':
			_, ok = p.plainString()
		case p.peek() == 'n':
			ok = p.literal("null")
		default:
			_, ok = p.integer()
		}
		p.space()
		if !ok || !p.byte(',') {
			return "", false
		}
	}
}

// tokenSchema is recordSchema by encoding/json's tokenizer, for every file
// the fast path does not take: its answer may come from the leading keys
// alone, whatever follows them.
func tokenSchema(r io.Reader) string {
	dec := json.NewDecoder(io.LimitReader(r, maxFile))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k == "schema_version" {
			var v string
			if dec.Decode(&v) != nil {
				return ""
			}
			return v
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// checkSchema refuses a request for another schema version than the
// folder was recorded with. It stops the run (ClassAuth, Category config,
// exit 4), like a recording that cannot be written: every other job of the
// run would meet the same folder.
func (p *Provider) checkSchema(req *extract.Request) error {
	want := wantSchema(req)
	got, err := p.recorded()
	if err != nil {
		return &extract.ProviderError{Class: extract.ClassAuth, Category: "config", Msg: err.Error()}
	}
	if got == "" || want == "" || got == want {
		return nil
	}
	return mismatch(p.dir, got, want)
}

func wantSchema(req *extract.Request) string {
	if req.Schema == nil {
		return ""
	}
	return req.Schema.Name
}

// mismatch is the one-line error for a recording of version got replayed
// for version want; where names the folder or file.
func mismatch(where, got, want string) error {
	return &extract.ProviderError{Class: extract.ClassAuth, Category: "config",
		Msg: fmt.Sprintf("recording %s was made with schema %s, not %s: replay it with --schema %s, or record it again with --schema %s",
			where, got, want, got, want)}
}
