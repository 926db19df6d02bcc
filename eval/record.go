package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RecordingFile is the file in a recording folder (see extract/replay) in
// which invx eval --record notes how the run was made, so that a replay
// asks for the same attempts. The replay provider ignores it.
const RecordingFile = "invx-eval.json"

// Recording says how a recorded evaluation was run. Replay is faithful only
// with the same tenant and schema version (they make the job keys) and the
// same repair and attempt settings (they decide which attempts are asked).
type Recording struct {
	Suite         string `json:"suite"`
	Label         string `json:"label"`
	Provider      string `json:"provider"`
	Tenant        string `json:"tenant"`
	SchemaVersion string `json:"schema_version"`
	Repair        int    `json:"repair"`
	MaxAttempts   int    `json:"max_attempts"`
}

// WriteRecording writes rec into the recording folder dir.
func WriteRecording(dir string, rec *Recording) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, RecordingFile), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write recording settings: %w", err)
	}
	return nil
}

// ReadRecording reads the settings of the recording folder dir; nil when
// the folder has none (a recording made by invx run --record).
func ReadRecording(dir string) (*Recording, error) {
	p := filepath.Join(dir, RecordingFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec Recording
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &rec, nil
}
