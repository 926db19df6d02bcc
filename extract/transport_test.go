package extract_test

import (
	"bytes"
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

// The shared client's small connection buffers carry what is larger than
// them byte for byte: a request body and a response with a header line and
// a body several times their size, over one kept-alive connection.
func TestHTTPClientLargeMessages(t *testing.T) {
	t.Parallel()
	big := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + (seed+byte(i))%26
		}
		return b
	}
	reqBody, header, respBody := big(16<<10, 1), string(big(6<<10, 2)), big(40<<10, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, err := io.ReadAll(r.Body)
		if err != nil || !bytes.Equal(got, reqBody) {
			t.Errorf("server read %d bytes (err %v), want the %d-byte request body", len(got), err, len(reqBody))
		}
		w.Header().Set("X-Big", header)
		_, _ = w.Write(respBody)
	}))
	defer srv.Close()
	c := extract.HTTPClient()
	for range 3 {
		resp, err := c.Post(srv.URL, "application/octet-stream", bytes.NewReader(reqBody))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, respBody) || resp.Header.Get("X-Big") != header {
			t.Fatalf("response: %d body bytes (err %v), header %d bytes; want %d and %d", len(got), err,
				len(resp.Header.Get("X-Big")), len(respBody), len(header))
		}
	}
}
