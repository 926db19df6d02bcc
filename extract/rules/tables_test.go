package rules

import (
	"sync"
	"testing"
)

// TestTablesBuild builds every table declared with onFirstUse, from several
// goroutines at once: since nothing is compiled at init any more, a bad
// pattern would otherwise only panic when a document first needs it.
func TestTablesBuild(t *testing.T) {
	t.Parallel()
	if len(tables) == 0 {
		t.Fatal("no table registered with onFirstUse")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, build := range tables {
				build()
			}
		}()
	}
	wg.Wait()
}
