package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"time"
)

// Provenance says which invx wrote a report, from which source revision,
// when, and on exactly which suite, so two reports can be told apart and a
// CI artefact traced back. Date differs between runs, like the timing
// figures; the rest is fixed by the binary and the suite.
type Provenance struct {
	InvxVersion string `json:"invx_version"`
	// VCSRevision is the commit the binary was built from (the vcs.revision
	// go build records), "unknown" when the binary carries none (go run,
	// go test, a build outside a checkout).
	VCSRevision string `json:"vcs_revision"`
	// Date is when the evaluation started, RFC 3339 UTC.
	Date string `json:"date"`
	// SuiteDigest is Suite.Digest: sha256 over the suite's file names and
	// contents, whatever the order they were read in.
	SuiteDigest string `json:"suite_digest"`
}

// NewProvenance describes an evaluation of s started at started by invx
// version.
func NewProvenance(version string, s *Suite, started time.Time) *Provenance {
	bi, ok := debug.ReadBuildInfo()
	return &Provenance{InvxVersion: version, VCSRevision: vcsRevision(bi, ok), Date: started.UTC().Format(time.RFC3339),
		SuiteDigest: s.Digest}
}

// vcsRevision is the vcs.revision setting of the build, "unknown" when
// there is none.
func vcsRevision(bi *debug.BuildInfo, ok bool) string {
	if ok && bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// digestFiles is "sha256:" and the hex sha256 of one line per file, sorted
// by name: the name, a NUL and the hex sha256 of its contents. Sorting
// makes it independent of the order files were read; hashing each content
// first keeps a name from running into the next file's bytes.
func digestFiles(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		c := sha256.Sum256(files[n])
		_, _ = io.WriteString(h, n+"\x00"+hex.EncodeToString(c[:])+"\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// shortDigest is a digest cut for people: the algorithm and 12 hex digits.
func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}

// line is the provenance as one line of text for the Markdown and HTML
// reports.
func (p *Provenance) line() string {
	if p == nil {
		return ""
	}
	rev := p.VCSRevision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return fmt.Sprintf("invx %s (revision %s), %s, suite %s", p.InvxVersion, rev, p.Date, shortDigest(p.SuiteDigest))
}
