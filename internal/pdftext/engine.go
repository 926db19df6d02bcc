package pdftext

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// maxMemoryPages caps one engine instance's WebAssembly memory (64 KiB pages):
// 1 GiB, far above an invoice's needs, so a decompression bomb fails inside
// the sandbox instead of exhausting the machine.
const maxMemoryPages = 16384

// maxInstances is how many documents are read at once; more wait for a slot.
// Each instance holds its own memory, so this bounds the engine's footprint.
const maxInstances = 2

// engineStarts counts the engine's starts in this process (0 or 1).
var engineStarts atomic.Int32

// EngineStarted reports whether this process has started the PDF engine. A
// run over text and XML alone must not: the engine is megabytes of compiled
// code and memory that only a PDF pays for (tests of cmd hold this).
func EngineStarted() bool { return engineStarts.Load() > 0 }

// engine compiles PDFium once per process, on first use (compiling the 6 MB
// module takes seconds, which `invx --help` must not pay). The compiled code
// is cached on disk, so later processes start in a fraction of that.
var engine = sync.OnceValues(func() (pdfium.Pool, error) {
	engineStarts.Add(1)
	rc := wazero.NewRuntimeConfig().
		// PDFium lowers setjmp/longjmp to WebAssembly exception handling.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(maxMemoryPages).
		// Lets Kill interrupt a call that runs too long. The checks this adds
		// make PDFium about 4x slower (dev set: 730 instead of 180 ms per PDF,
		// a 91-page manual 16 s instead of 5 s), but without them a page that
		// never finishes would keep a core busy for the rest of the process:
		// never hanging matters more than speed for a batch tool.
		WithCloseOnContextDone(true)
	if cache := compilationCache(); cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       maxInstances,
		MaxTotal:      maxInstances,
		RuntimeConfig: rc,
	})
	if err != nil {
		return nil, fmt.Errorf("start pdf engine: %w", err)
	}
	return pool, nil
})

// compilationCache is wazero's on-disk cache under the user cache directory,
// or nil when there is none (the engine then compiles in memory every run).
func compilationCache() wazero.CompilationCache {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "invx", "wazero"))
	if err != nil {
		return nil
	}
	return cache
}

// instance borrows a fresh engine instance, waiting for a free slot until ctx ends.
func instance(ctx context.Context, pool pdfium.Pool) (pdfium.Pdfium, error) {
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("wait for pdf engine: %w", err)
	}
	return inst, nil
}
