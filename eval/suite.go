package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/invx/invx/extract"
)

// ExpectSuffix ends the name of a document's expectation file.
const ExpectSuffix = ".expect.json"

// MaxDocumentBytes is the largest document a suite may hold, as invx run's
// default --max-bytes.
const MaxDocumentBytes = 1 << 20

// Suite is a loaded evaluation suite.
type Suite struct {
	// Name is the suite folder's base name ("invoices").
	Name string
	// Root is the folder as given.
	Root string
	// Docs are the suite's documents, sub-suites included, in path order.
	Docs []*Doc
	// Digest is the sha256 over the names and contents of the suite's
	// texts and expectations (see digestFiles).
	Digest string
}

// Doc is one document of a suite with its expectation.
type Doc struct {
	// Name is the document's path relative to the suite root, slash
	// separated ("edge/de_crlf_bom_rechnung.txt", "ubl_invoice.xml").
	Name string
	// SubSuite names the folder the document is in: the suite name, then
	// the subfolders ("invoices/edge").
	SubSuite string
	// Found is the document as discovery hands it to invx run: normalised
	// text and digest.
	Found  extract.Found
	Expect Expect
}

// Load reads the suite under root: every document invx run takes (NAME.txt,
// NAME.xml) with its NAME.expect.json, in root and its subfolders. Hidden files and folders are ignored, as invx
// run ignores them. A text without its expectation or the reverse, a text
// run would skip (binary, not UTF-8, empty, oversized) and an expectation
// with an unknown key or a badly typed value are errors naming the file.
func Load(ctx context.Context, root string) (*Suite, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", root, unwrapPath(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("suite %s: not a folder (a suite is a folder of NAME.txt + NAME%s)", root, ExpectSuffix)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", root, err)
	}
	s := &Suite{Name: filepath.Base(abs), Root: root}

	var problems []error
	texts := map[string]extract.Found{} // by stem: path without extension
	skipped := map[string]bool{}        // stems of documents run would skip, already reported
	err = extract.Discover(ctx, root, extract.DiscoverOptions{MaxBytes: MaxDocumentBytes},
		func(d extract.Found) error {
			if prev, dup := texts[stem(d.Path)]; dup {
				problems = append(problems, fmt.Errorf("%s and %s: two documents for one %s", prev.Display, d.Display, ExpectSuffix))
			}
			texts[stem(d.Path)] = d
			return nil
		},
		func(sk extract.Skipped) {
			switch sk.Reason {
			case extract.SkipNotIncluded, extract.SkipHidden:
				return
			}
			if !extract.Taken(sk.Display) {
				return
			}
			msg := sk.Reason
			if sk.Detail != "" {
				msg = sk.Detail
			}
			if rel, err := filepath.Rel(root, sk.Display); err == nil {
				skipped[stem(filepath.ToSlash(rel))] = true
			}
			problems = append(problems, fmt.Errorf("%s: %s (invx run would skip it)", sk.Display, msg))
		})
	if err != nil {
		return nil, err
	}

	expects := map[string]string{} // document stem -> expectation display path
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ExpectSuffix) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		expects[strings.TrimSuffix(filepath.ToSlash(rel), ExpectSuffix)] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", root, err)
	}

	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, st := range names {
		found := texts[st]
		name := found.Path
		ep, ok := expects[st]
		if !ok {
			problems = append(problems, fmt.Errorf("%s: no %s beside it", found.Display, path.Base(st+ExpectSuffix)))
			continue
		}
		exp, err := readExpect(ep)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		sub := s.Name
		if dir := path.Dir(name); dir != "." {
			sub += "/" + dir
		}
		s.Docs = append(s.Docs, &Doc{Name: name, SubSuite: sub, Found: found, Expect: exp})
	}
	var orphans []string
	for name, ep := range expects {
		if _, ok := texts[name]; !ok && !skipped[name] {
			orphans = append(orphans, ep)
		}
	}
	slices.Sort(orphans)
	for _, ep := range orphans {
		problems = append(problems, fmt.Errorf("%s: no %s beside it", ep, path.Base(strings.TrimSuffix(filepath.ToSlash(ep), ExpectSuffix)+".txt")))
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if len(s.Docs) == 0 {
		return nil, fmt.Errorf("suite %s: no NAME.txt + NAME%s pairs (or NAME.xml)", root, ExpectSuffix)
	}
	// The digest covers the files as they are on disk, each text and its
	// expectation, so a report names exactly what it measured.
	files := map[string][]byte{}
	for _, d := range s.Docs {
		exp := stem(d.Name) + ExpectSuffix
		for _, name := range []string{d.Name, exp} {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
			if err != nil {
				return nil, fmt.Errorf("suite %s: %w", root, unwrapPath(err))
			}
			files[name] = b
		}
	}
	s.Digest = digestFiles(files)
	return s, nil
}

// readExpect reads and checks one expectation file.
func readExpect(p string) (Expect, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	exp, err := ParseExpect(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return exp, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// stem is a document path without its extension: the name its expectation
// file shares.
func stem(p string) string {
	return strings.TrimSuffix(p, path.Ext(p))
}
