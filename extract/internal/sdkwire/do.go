package sdkwire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Body is a request body that can be read again from its start (for a
// redirect), with its length known up front.
type Body interface {
	Size() int64
	Reader() io.ReadCloser
}

// Bytes is a body in one piece.
type Bytes []byte

func (b Bytes) Size() int64           { return int64(len(b)) }
func (b Bytes) Reader() io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// Call is one request.
type Call struct {
	Method, URL string
	Header      http.Header
	Body        Body // nil: none
	Timeout     time.Duration
	// Stream leaves a 2xx answer's body unread for the caller (a file's
	// content, batch results); every other answer is read whole.
	Stream bool
}

// Sender sends calls as one of the SDKs sent them. The SDKs differ in two
// details, and only there: the error an answer of status 400 or more
// becomes, and whether a failed read of such an answer's body is wrapped
// (anthropic-sdk-go wrapped every read error, openai-go only a successful
// answer's).
type Sender struct {
	Client *http.Client
	// APIError is the error of an answer with status 400 or more, its
	// body already read (data) and kept readable in res.
	APIError func(res *http.Response, data []byte) error
	// WrapErrorReads wraps the read error of an answer with status 400 or
	// more too.
	WrapErrorReads bool
}

// Do sends c once and returns the answer as the SDK returned it: raw is
// the response whenever the SDK would have handed it over (also beside an
// error); a status of 400 or more is s.APIError's error; a call that
// outlives its timeout (or ctx) returns the context's error and no
// response. data is the body of an answer that was read. A streamed
// answer's body cancels the call's timeout when closed.
func (s Sender) Do(ctx context.Context, c Call) (data []byte, raw *http.Response, err error) {
	callerCtx := ctx
	cancel := context.CancelFunc(func() {})
	if c.Timeout != 0 && beforeDeadline(time.Now().Add(c.Timeout), ctx) {
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	defer func() { cancel() }()
	req, err := http.NewRequestWithContext(ctx, c.Method, c.URL, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header = c.Header
	if c.Body != nil {
		setBody(req, c.Body)
	}
	res, err := s.Client.Do(req)
	var readErr error
	if err == nil && (res.StatusCode >= 400 || !c.Stream) {
		data, readErr = readAll(res)
		_ = res.Body.Close()
		if readErr != nil && (res.StatusCode < 400 || s.WrapErrorReads) {
			readErr = fmt.Errorf("error reading response body: %w", readErr)
		}
	}
	if err := callerCtx.Err(); err != nil {
		closeBody(res)
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		// Only the call's own timeout expired.
		closeBody(res)
		return nil, nil, err
	}
	switch {
	case err != nil:
		return nil, res, err
	case readErr != nil:
		return nil, res, readErr
	case res.StatusCode >= 400:
		// Kept readable for whoever inspects the response, as the SDKs did.
		res.Body = io.NopCloser(bytes.NewReader(data))
		return nil, res, s.APIError(res, data)
	case c.Stream:
		res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
		cancel = func() {}
		return nil, res, nil
	}
	return data, res, nil
}

// readAll reads res's body whole into a buffer of exactly its size:
// io.ReadAll starts at 512 bytes and grows by copying, about three times
// an answer's size in garbage per call. With the length announced the
// buffer is sized from it (a body longer than announced is still read
// whole: net/http reports the mismatch); without (a chunked answer, which
// is what a server sends for more than 2 KiB written at once) the body is
// read into a pooled buffer and copied out.
func readAll(res *http.Response) ([]byte, error) {
	if n := res.ContentLength; n > 0 && n <= maxPresize {
		// bytes.MinRead more: ReadFrom grows the buffer when less than
		// that is free before its final read, which finds EOF.
		b := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
		_, err := b.ReadFrom(res.Body)
		return b.Bytes(), err
	}
	b := readBufs.Get().(*bytes.Buffer)
	b.Reset()
	_, err := b.ReadFrom(res.Body)
	data := append(make([]byte, 0, b.Len()), b.Bytes()...)
	if b.Cap() <= maxPresize {
		readBufs.Put(b)
	}
	return data, err
}

// maxPresize bounds the buffer readAll sizes from a Content-Length header,
// and the buffers it keeps for reuse.
const maxPresize = 1 << 20

var readBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// setBody gives req the body b as http.NewRequest gives it a bytes.Reader:
// its length, a way to read it again, and http.NoBody when it is empty.
func setBody(req *http.Request, b Body) {
	req.ContentLength = b.Size()
	if req.ContentLength == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	req.Body = b.Reader()
	req.GetBody = func() (io.ReadCloser, error) { return b.Reader(), nil }
}

// cancelOnClose releases a streamed call's timeout once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func closeBody(res *http.Response) {
	if res != nil && res.Body != nil {
		_ = res.Body.Close()
	}
}

// beforeDeadline reports whether t comes before ctx's deadline, if any.
func beforeDeadline(t time.Time, ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return !ok || t.Before(d)
}
