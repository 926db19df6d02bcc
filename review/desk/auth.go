package desk

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// cookieName holds the access token once the URL's token was exchanged
// for it, so the token leaves the address bar and the history.
const cookieName = "invx_desk"

// maxForm bounds a POST body: a correction is a few lines.
const maxForm = 64 << 10

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// authorised lets a request through when it carries the access token: in
// the cookie, or once in the URL (?token=), which is exchanged for the
// cookie with a redirect to the same page without it. Anything else is
// 401; the handler has answered when it returns false.
func (d *Desk) authorised(w http.ResponseWriter, r *http.Request) bool {
	if tok := r.URL.Query().Get("token"); tok != "" {
		if !same(tok, d.cfg.Token) {
			http.Error(w, "401 unauthorised: the access token is wrong; open the URL invx review serve printed", http.StatusUnauthorized)
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: d.cfg.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		u := *r.URL
		q := u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	if c, err := r.Cookie(cookieName); err == nil && same(c.Value, d.cfg.Token) {
		return true
	}
	http.Error(w, "401 unauthorised: open the URL invx review serve printed (it carries the access token)", http.StatusUnauthorized)
	return false
}

// post guards a state-changing handler: the request must come from a page
// of the desk itself (Origin, else Referer, names this host) and carry the
// CSRF token of its form. Either missing or wrong is 403 and nothing is
// written.
func (d *Desk) post(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r) {
			http.Error(w, "403 forbidden: the request does not come from the review desk (Origin)", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !same(r.PostForm.Get("csrf"), d.csrf) {
			http.Error(w, "403 forbidden: the form's CSRF token is missing or stale; reload the page", http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

// sameOrigin reports whether the request's Origin (or, when a browser sends
// none, its Referer) is this server. A POST without either is refused.
func sameOrigin(r *http.Request) bool {
	want := "http://" + r.Host
	if o := r.Header.Get("Origin"); o != "" {
		return o == want
	}
	ref, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || ref.Host == "" {
		return false
	}
	return strings.EqualFold(ref.Scheme+"://"+ref.Host, want)
}
