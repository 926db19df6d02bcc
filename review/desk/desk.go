// Package desk is the review desk: a small web app in the binary where an
// accounts-payable clerk works the review queue with the invoice text and
// its highlighted facts side by side. Every action goes through the same
// calls as the invx review commands (review.Queue, review.Correct, the
// store's AcceptReview and DismissReview): one implementation, two faces.
//
// It is built to be safe on a shared machine: a random access token
// (exchanged for an HttpOnly, SameSite=Strict cookie), a CSRF token and an
// Origin check on every POST, a strict Content-Security-Policy, and every
// value from documents or models escaped by html/template.
package desk

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/invx/invx/review"
	"github.com/invx/invx/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Store is what the desk reads and writes (store.Store has it).
type Store interface {
	review.QueueStore
	review.CorrectStore
	ListAttempts(ctx context.Context, p *store.ListAttemptsParams) ([]*store.Attempt, error)
	AcceptReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error)
	DismissReview(ctx context.Context, p *store.ReviewActionParams) (*store.ReviewActionResult, error)
	Dismiss(ctx context.Context, p *store.JobActionParams) error
}

// Config configures a desk.
type Config struct {
	Store  Store
	Tenant string
	// Actor is recorded with every action (invx review serve --actor).
	Actor string
	// Token is the access token; empty makes a random one (Token()).
	Token string
	// PageSize is the number of queue entries per page (default 100).
	PageSize int
	Now      func() time.Time
	Log      *slog.Logger
}

// Desk is the review desk's HTTP handler.
type Desk struct {
	cfg  Config
	csrf string
	tmpl *template.Template
	mux  *http.ServeMux
}

// New builds a desk.
func New(cfg Config) (*Desk, error) {
	if cfg.Token == "" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		cfg.Token = hex.EncodeToString(b[:])
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 100
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	tmpl, err := template.New("desk").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	// The CSRF token is derived from the access token: it changes with
	// every server start and needs no server-side session.
	mac := hmac.New(sha256.New, []byte(cfg.Token))
	mac.Write([]byte("invx review desk csrf"))
	d := &Desk{cfg: cfg, csrf: hex.EncodeToString(mac.Sum(nil)), tmpl: tmpl, mux: http.NewServeMux()}
	d.mux.HandleFunc("GET /static/{file}", d.static)
	d.mux.HandleFunc("GET /{$}", d.queue)
	d.mux.HandleFunc("GET /doc/{key}", d.document)
	d.mux.HandleFunc("POST /doc/{key}/accept", d.post(d.accept))
	d.mux.HandleFunc("POST /doc/{key}/correct", d.post(d.correct))
	d.mux.HandleFunc("POST /doc/{key}/dismiss", d.post(d.dismiss))
	return d, nil
}

// Token is the access token the desk's URL carries.
func (d *Desk) Token() string { return d.cfg.Token }

// ServeHTTP applies the security headers and the access check to every
// request, then routes it.
func (d *Desk) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !d.authorised(w, r) {
		return
	}
	// An unclean path ("/static/../go.mod") is not redirected to its clean
	// form, as ServeMux would: nothing of the desk is reached that way.
	if p := r.URL.Path; strings.Contains(p, "..") || (path.Clean(p) != p && p != "/") {
		http.NotFound(w, r)
		return
	}
	d.mux.ServeHTTP(w, r)
}

// static serves one file of the embedded static folder, nothing else: no
// listing, no subfolders.
func (d *Desk) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(staticFS, "static/"+name)
	if err != nil || strings.ContainsAny(name, "/\\") {
		http.NotFound(w, r)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}
