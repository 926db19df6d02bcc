package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// manifestFile names the schema version a Recorder records a folder's
// answers for. Without it, learning a folder's version means opening every
// answer in it (answersSchema), which was a twentieth of a 10k-document
// replay run's CPU. It is written once, before the first answer of a
// version, and never rewritten: the first Recorder to create it decides
// the folder's version, and every other Recorder, in this process or
// another, compares against it before it records. Folders recorded before
// it existed are still read by the scan.
const manifestFile = "invx-recording.json"

// manifest is the content of manifestFile.
type manifest struct {
	SchemaVersion string `json:"schema_version"`
}

// readManifest is the schema version the folder's manifest names; "" with
// no error when the folder has none (or it names none).
func readManifest(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("recording folder %s: %s: %w", dir, manifestFile, pathReason(err))
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("recording folder %s: %s: %v", dir, manifestFile, err)
	}
	return m.SchemaVersion, nil
}

// claimManifest makes version the folder's recorded version unless the
// folder's manifest names one already, and returns the version the folder
// is recorded for from now on. The manifest appears whole or not at all
// (a hard link of a complete temporary file, which fails if another
// Recorder linked first), so concurrent Recorders agree on one version.
func claimManifest(dir, version string) (string, error) {
	if got, err := readManifest(dir); err != nil || got != "" {
		return got, err
	}
	b, err := json.Marshal(manifest{SchemaVersion: version})
	if err != nil {
		return "", err
	}
	err = createOnce(dir, manifestFile, append(b, '\n'))
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("recording folder %s: write %s: %w", dir, manifestFile, pathReason(err))
	}
	got, err := readManifest(dir)
	if err == nil && got == "" {
		// Only a manifest edited by hand names no version.
		err = fmt.Errorf("recording folder %s: %s names no schema_version", dir, manifestFile)
	}
	return got, err
}

// createOnce writes name in dir with content b unless the file exists
// (fs.ErrExist), so that no reader sees it half written.
func createOnce(dir, name string, b []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(fileMode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp, filepath.Join(dir, name))
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: an exclusive create, whose
	// content a concurrent reader may see half written (and report).
	f, err = os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
