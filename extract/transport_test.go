package extract_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/invx/invx/extract"
)

// At concurrency 64 the shared client reuses its connections: 640 calls
// open at most one connection per concurrent caller, where the default
// transport (2 idle per host) opens hundreds.
func TestHTTPClientReusesConnections(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	const workers, calls = 64, 10
	c := extract.HTTPClient()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if n := conns.Load(); n > 2*workers {
		t.Errorf("%d calls at concurrency %d opened %d connections, want at most %d", workers*calls, workers, n, 2*workers)
	}
}
