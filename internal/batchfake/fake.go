// Package batchfake runs loopback fakes of the OpenAI Batch API (Files
// upload and content, /v1/batches) and the Anthropic Message Batches API
// (/v1/messages/batches) for tests in extract, cmd and e2e. They speak the
// wire formats of PROVIDERS.md sections 3 and 5, validate what the real
// APIs validate, and answer each request through AnswerFunc, which sees the
// document text the request carries.
//
// A fake's state lives in the test process: an invx subprocess killed with
// SIGKILL and started again talks to the same batches, files and counters.
//
// Typical use (cmd and e2e tests point --base-url at fake.URL):
//
//	fake := batchfake.NewOpenAI(t) // or NewAnthropic
//	fake.SetPolls(3)                                 // in_progress for 3 retrieves
//	fake.SetAnswer(batchfake.AnswerWith(rules.New(), schema.V1)) // or per custom id
//	c, _ := openai.NewBatch(openai.Config{BaseURL: fake.URL, APIKey: "k", Model: "m"})
//	...
//	fake.Counts().Creations // exactly one per chunk
//
// Batches move only when retrieved: each GET of a batch counts one poll,
// and the poll after the last in_progress one answers every request (with
// the AnswerFunc set then) and ends the batch. Listing never advances a
// batch. Cancel (and Expire) make the next retrieve end the batch with
// every request cancelled (expired). Result lines come shuffled, as the real
// APIs do not keep input order; OpenAI puts 200 lines in the output file
// and the rest in the error file.
//
// What the fakes refuse: OpenAI answers 400 to an upload that is not
// multipart with purpose batch, a .jsonl file name and one JSON object a
// line, and to a creation naming an unknown endpoint, a window other than
// 24h, too much metadata or an unknown file; bad lines (custom_id outside
// [A-Za-z0-9_-]{1,64} or repeated, another method or url, no model, mixed
// models, no messages, over 50,000 lines) make a batch that fails
// validation, as the real API does. Anthropic answers 401 without a key
// (x-api-key or bearer, not both), 400 without anthropic-version, 400 for a
// bad or repeated custom_id, params without model, max_tokens or messages,
// or with stream, and 413 over 256 MB.
package batchfake

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Kind is which API a Server speaks.
type Kind string

// The two batch APIs.
const (
	OpenAI    Kind = "openai"
	Anthropic Kind = "anthropic"
)

// AnswerFunc answers one request of a batch: customID as submitted and
// userText the document text between the schema's markers ("" if none).
type AnswerFunc func(customID, userText string) Outcome

// Counts are how many calls of each kind a Server answered (errors too).
type Counts struct {
	Uploads, Creations, Retrieves, Lists, Cancels, Downloads int64
}

// Request is one request a Server received inside a batch.
type Request struct {
	BatchID  string
	CustomID string
	// Body is the request's body as sent: OpenAI's line "body", Anthropic's
	// "params".
	Body     json.RawMessage
	UserText string
}

// Server is one fake batch API. Set its fields before the first request;
// the Set methods may be called at any time.
type Server struct {
	Kind Kind
	// URL is the base URL for the adapter's Config.BaseURL: the server
	// plus "/v1/" for OpenAI, the bare server for Anthropic.
	URL string
	// Srv is the underlying server (Close it to simulate an outage).
	Srv *httptest.Server
	// APIKey, if set, must be the bearer token (or Anthropic x-api-key).
	APIKey string
	// Now is the clock for created_at (tests move batches in time).
	Now func() time.Time

	mu          sync.Mutex
	afterCreate func(remoteID string) (drop bool)
	intercept   func(w http.ResponseWriter, r *http.Request) bool
	polls       int
	answer      AnswerFunc
	files       map[string]*file
	batches     []*batch // in creation order
	reqs        []Request
	seq         int

	uploads, creations, retrieves, lists, cancels, downloads atomic.Int64
}

// file is an uploaded or generated file.
type file struct {
	id, purpose, name string
	data              []byte
	created           int64
}

// batch is one batch and its lifecycle.
type batch struct {
	id, inputFile, endpoint, window, model string
	metadata                               map[string]string
	created                                time.Time
	reqs                                   []Request
	// failed holds OpenAI validation errors: the batch failed as a whole.
	failed []lineError
	// retrieves counts polls; the batch ends on the one after Polls.
	retrieves  int
	cancelled  bool
	expired    bool
	answering  bool
	ended      bool
	endedAt    time.Time
	outcomes   []Outcome
	outputFile string // OpenAI
	errorFile  string // OpenAI
	results    []byte // Anthropic JSONL
}

// lineError is one entry of an OpenAI failed batch's errors.data.
type lineError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   any    `json:"param"`
	Line    int    `json:"line"`
}

// NewOpenAI starts a fake OpenAI Batch API, closed at the end of t.
func NewOpenAI(t testing.TB) *Server { return newServer(t, OpenAI) }

// NewAnthropic starts a fake Anthropic Message Batches API, closed at the
// end of t.
func NewAnthropic(t testing.TB) *Server { return newServer(t, Anthropic) }

func newServer(t testing.TB, kind Kind) *Server {
	t.Helper()
	s := &Server{Kind: kind, Now: time.Now, polls: 2, files: map[string]*file{},
		answer: func(string, string) Outcome { return Success(`{}`) }}
	var h http.Handler = http.HandlerFunc(s.serveOpenAI)
	if kind == Anthropic {
		h = http.HandlerFunc(s.serveAnthropic)
	}
	s.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		f := s.intercept
		s.mu.Unlock()
		if f != nil && f(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Srv.Close)
	s.URL = s.Srv.URL
	if kind == OpenAI {
		s.URL += "/v1/"
	}
	return s
}

// SetPolls sets how many retrieves a new or running batch stays
// in_progress before it ends (default 2; 0 ends it on the first).
func (s *Server) SetPolls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls = n
}

// SetAnswer sets how requests are answered (default: Success("{}")).
// Batches answer when they end, with the function set then.
func (s *Server) SetAnswer(f AnswerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

// SetAfterCreateFunc sets f to run after a batch was created and stored;
// f returning true drops the connection without an answer, as if the
// client died between creating the batch and recording it. nil removes it.
func (s *Server) SetAfterCreateFunc(f func(remoteID string) (drop bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.afterCreate = f
}

// SetInterceptFunc sets f to see every request first; f returning true
// means it answered (a 429, a 500, a stall ...). nil removes it.
func (s *Server) SetInterceptFunc(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

// dropAfterCreate runs the after-create hook for id.
func (s *Server) dropAfterCreate(id string) bool {
	s.mu.Lock()
	f := s.afterCreate
	s.mu.Unlock()
	return f != nil && f(id)
}

// Counts returns the call counters.
func (s *Server) Counts() Counts {
	return Counts{Uploads: s.uploads.Load(), Creations: s.creations.Load(), Retrieves: s.retrieves.Load(),
		Lists: s.lists.Load(), Cancels: s.cancels.Load(), Downloads: s.downloads.Load()}
}

// Requests returns every request of every batch created, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// BatchIDs returns the ids of the batches created, in order.
func (s *Server) BatchIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, len(s.batches))
	for i, b := range s.batches {
		ids[i] = b.id
	}
	return ids
}

// EndAll makes every open batch end on its next retrieve.
func (s *Server) EndAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		b.retrieves = max(b.retrieves, s.polls)
	}
}

// Expire makes an open batch expire: its next retrieve shows it ended
// (OpenAI status expired) with every request expired. It reports whether
// the batch was open.
func (s *Server) Expire(batchID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.find(batchID)
	if b == nil || b.ended || b.failed != nil {
		return false
	}
	b.expired = true
	return true
}

// nextID returns a new id with prefix.
func (s *Server) nextID(prefix string) string {
	s.seq++
	return prefix + itoa(s.seq)
}

func (s *Server) find(id string) *batch {
	for _, b := range s.batches {
		if b.id == id {
			return b
		}
	}
	return nil
}

// poll counts a retrieve of b and ends it when its polls are used up.
// It returns whether b must be answered now (outside the lock).
func (s *Server) poll(b *batch) bool {
	b.retrieves++
	if b.ended || b.answering || !(b.cancelled || b.expired || b.retrieves > s.polls) {
		return false
	}
	// One retrieve answers; concurrent ones still see the batch running.
	b.answering = true
	return true
}

// finish answers every request of b and ends it. Called without s.mu held
// so AnswerFunc may call back into the fake.
func (s *Server) finish(b *batch) {
	s.mu.Lock()
	if b.ended || b.outcomes != nil {
		s.mu.Unlock()
		return
	}
	answer, cancelled, expired := s.answer, b.cancelled, b.expired
	s.mu.Unlock()
	out := make([]Outcome, len(b.reqs))
	for i, r := range b.reqs {
		switch {
		case cancelled:
			out[i] = Outcome{kind: kindCancelled}
			continue
		case expired:
			out[i] = Outcome{kind: kindExpired}
			continue
		}
		out[i] = answer(r.CustomID, r.UserText)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.ended {
		return
	}
	b.outcomes, b.ended, b.endedAt = out, true, s.Now()
	if s.Kind == OpenAI {
		s.openAIFiles(b)
	} else {
		b.results = s.anthropicResults(b)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("batchfake: response writer cannot hijack")
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// InputFile returns the input file of an OpenAI batch as uploaded (nil if
// there is none).
func (s *Server) InputFile(batchID string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.find(batchID)
	if b == nil || s.files[b.inputFile] == nil {
		return nil
	}
	return append([]byte(nil), s.files[b.inputFile].data...)
}
