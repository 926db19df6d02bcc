package extract

import (
	"net/http"
	"sync"
	"time"
)

// maxConnsPerHost is how many idle connections to one provider host are
// kept for reuse: as many as the largest --concurrency, so a run at c256
// does not open a new TCP (and TLS) connection for most calls, as the
// default transport's 2 idle connections per host make it do.
const maxConnsPerHost = 256

// Each connection keeps a read and a write buffer for as long as it is
// open, so at --concurrency 256 the default 4 KiB each was 2 MiB of live
// heap (twice that at the collector's peak). A request body of 10-16 KiB
// overflows any of these sizes and goes to the socket in the same number
// of writes, and an answer of a few KiB is read whole by the caller's own
// buffer once the headers are parsed.
const (
	readBufferSize  = 2 << 10
	writeBufferSize = 1 << 10
)

var (
	clientOnce sync.Once
	client     *http.Client
)

// HTTPClient is the client the HTTP providers (openai, anthropic, ollama)
// share when none is given: no client timeout (each call carries its own
// deadline) and a connection pool sized for invx's concurrency.
func HTTPClient() *http.Client {
	clientOnce.Do(func() {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = 2 * maxConnsPerHost
		t.MaxIdleConnsPerHost = maxConnsPerHost
		t.IdleConnTimeout = 90 * time.Second
		t.ReadBufferSize, t.WriteBufferSize = readBufferSize, writeBufferSize
		client = &http.Client{Transport: t}
	})
	return client
}
