package extract

import (
	"context"
	"io"
	"net"
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
		dial := t.DialContext
		t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return bodyConn{c}, nil
		}
		client = &http.Client{Transport: t}
	})
	return client
}

// bodyConn sends what overflows a connection's write buffer (most of a
// request body) through a pooled buffer. net/http hands that part to the
// connection's ReadFrom as an io.LimitedReader, and a *net.TCPConn copies
// it through a buffer allocated per call as large as the rest of the body:
// for invoice-v2's 14 KiB requests a fifth of all the bytes a run against
// an HTTP model allocated. A TLS connection wraps this one and copies
// through a buffer of its own.
type bodyConn struct{ net.Conn }

// bodyBufs holds the copy buffers; 32 KiB is io.Copy's own size, so a
// larger body goes out in the same writes as before.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (c bodyConn) ReadFrom(r io.Reader) (int64, error) {
	b := bodyBufs.Get().(*[]byte)
	defer bodyBufs.Put(b)
	// The bare writer keeps io.CopyBuffer off the TCP connection's own
	// ReadFrom, which would allocate again.
	return io.CopyBuffer(struct{ io.Writer }{c.Conn}, r, *b)
}
