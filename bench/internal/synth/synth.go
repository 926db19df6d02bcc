// Package synth writes deterministic synthetic supplier-invoice texts for the
// invx benchmark.
//
// Document i is drawn from a generator seeded with (seed, i) alone, so the
// same seed always gives the same bytes, however many goroutines write them;
// i is part of every invoice number, so no two documents are equal. Texts
// vary in language (en, de, fr, es, nl, it, with each one's labels), layout
// (columns, block, pipes, stacked), currency (EUR, USD, GBP, CHF, JPY, BHD,
// with their minor units), number style (1,234.56 / 1.234,56 / 1 234,56 /
// 1'234.56) and date style; some carry a purchase-order reference, a
// reverse-charge or exemption remark, a bank-detail change or a page break.
// All parties, addresses and bank identifiers are invented.
package synth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Doc returns the text of document i for seed.
func Doc(seed uint64, i int) []byte {
	r := newRand(seed, i)
	return render(r, newInvoice(r, i))
}

func newRand(seed uint64, i int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(i))) }

// Path is where Write puts document i: numbered folders of perDir
// documents each (0000/inv-0000000.txt, …).
func Path(out string, i, perDir int) string {
	return filepath.Join(out, fmt.Sprintf("%04d", i/perDir), fmt.Sprintf("inv-%07d.txt", i))
}

// Write writes documents 0..n-1 for seed under out, creating the folders,
// and returns the number of bytes written. Existing files of the same names
// are overwritten; nothing else in out is touched.
func Write(out string, n, perDir int, seed uint64) (int64, error) {
	if n < 0 || perDir < 1 {
		return 0, fmt.Errorf("write documents: n %d, per folder %d: want n >= 0 and per folder >= 1", n, perDir)
	}
	for d := 0; d*perDir < n; d++ {
		if err := os.MkdirAll(filepath.Dir(Path(out, d*perDir, perDir)), 0o755); err != nil {
			return 0, fmt.Errorf("create folder: %w", err)
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	errs := make([]error, workers)
	sizes := make([]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				text := Doc(seed, i)
				if err := os.WriteFile(Path(out, i, perDir), text, 0o644); err != nil {
					errs[w] = fmt.Errorf("write document: %w", err)
					return
				}
				sizes[w] += int64(len(text))
			}
		}()
	}
	wg.Wait()
	var total int64
	for _, s := range sizes {
		total += s
	}
	return total, errors.Join(errs...)
}
