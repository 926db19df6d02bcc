package cmd_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invx/invx/cmd"
	"github.com/invx/invx/review/desk"
	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

const deskToken = "test-token-0123456789"

// deskServer serves the review desk over e's database on a loopback port,
// acting as ann.
func deskServer(t *testing.T, e *opsEnv) *httptest.Server {
	t.Helper()
	d, err := desk.New(desk.Config{Store: e.store(), Tenant: "default", Actor: "ann", Token: deskToken, Now: e.clock})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	return srv
}

// deskClient is a browser-like client: a cookie jar, no automatic
// redirects (the tests look at them).
func deskClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type deskResp struct {
	code int
	body string
	h    http.Header
}

func deskDo(t *testing.T, c *http.Client, method, u string, form url.Values, hdr map[string]string) deskResp {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return deskResp{resp.StatusCode, string(b), resp.Header}
}

// deskLogin exchanges the URL's token for the cookie, as a browser does on
// the first visit.
func deskLogin(t *testing.T, c *http.Client, srv *httptest.Server) {
	t.Helper()
	r := deskDo(t, c, "GET", srv.URL+"/?token="+deskToken, nil, nil)
	if r.code != http.StatusSeeOther || r.h.Get("Location") != "/" {
		t.Fatalf("login: %d, Location %q", r.code, r.h.Get("Location"))
	}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func deskCSRF(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%.2000s", page)
	}
	return m[1]
}

func openReasons(t *testing.T, e *opsEnv, key string) int {
	t.Helper()
	items, err := e.store().ListReview(context.Background(), &store.ListReviewParams{Tenant: "default"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range items {
		if it.JobKey == key {
			n++
		}
	}
	return n
}

// The desk refuses anyone without the access token, exchanges the URL's
// token for an HttpOnly, SameSite=Strict cookie and sends a strict CSP.
func TestReviewServeAccessToken(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	setupDesk(t, e)
	srv := deskServer(t, e)
	c := deskClient(t)
	for _, u := range []string{"/", "/?token=wrong", "/doc/abc", "/static/desk.js"} {
		if r := deskDo(t, c, "GET", srv.URL+u, nil, nil); r.code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", u, r.code)
		}
	}
	r := deskDo(t, c, "GET", srv.URL+"/?token="+deskToken, nil, nil)
	ck := r.h.Get("Set-Cookie")
	if r.code != http.StatusSeeOther || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") {
		t.Fatalf("login: %d, cookie %q", r.code, ck)
	}
	r = deskDo(t, c, "GET", srv.URL+"/", nil, nil)
	if r.code != http.StatusOK || !strings.Contains(r.body, `id="queue"`) {
		t.Fatalf("queue with the cookie: %d\n%.500s", r.code, r.body)
	}
	csp := r.h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(r.body, deskToken) {
		t.Error("the page shows the access token")
	}
}

// A POST must come from the desk's own page: without an Origin (and
// Referer), from another origin, or without the form's CSRF token it is
// refused with 403 and nothing changes.
func TestReviewServePostGuards(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	srv := deskServer(t, e)
	c := deskClient(t)
	deskLogin(t, c, srv)
	page := deskDo(t, c, "GET", srv.URL+"/doc/"+b.nordlicht, nil, nil)
	csrf := deskCSRF(t, page.body)
	accept := srv.URL + "/doc/" + b.nordlicht + "/accept"
	own := map[string]string{"Origin": srv.URL}
	for _, tc := range []struct {
		name string
		form url.Values
		hdr  map[string]string
	}{
		{"no Origin", url.Values{"csrf": {csrf}}, nil},
		{"another Origin", url.Values{"csrf": {csrf}}, map[string]string{"Origin": "http://evil.example"}},
		{"another Referer", url.Values{"csrf": {csrf}}, map[string]string{"Referer": "http://evil.example/doc"}},
		{"no CSRF token", url.Values{}, own},
		{"a wrong CSRF token", url.Values{"csrf": {strings.Repeat("0", len(csrf))}}, own},
	} {
		if r := deskDo(t, c, "POST", accept, tc.form, tc.hdr); r.code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, r.code)
		}
	}
	if n := openReasons(t, e, b.nordlicht); n != 1 {
		t.Fatalf("refused POSTs changed the reasons: %d open, want 1", n)
	}
	// The Referer of the desk's own page is enough when a browser sends no
	// Origin; then the accept goes through.
	r := deskDo(t, c, "POST", accept, url.Values{"csrf": {csrf}}, map[string]string{"Referer": srv.URL + "/doc/" + b.nordlicht})
	if r.code != http.StatusSeeOther {
		t.Fatalf("accept from the desk's page: %d\n%s", r.code, r.body)
	}
	if n := openReasons(t, e, b.nordlicht); n != 0 {
		t.Fatalf("accept left %d reasons open", n)
	}
}

// Every value from documents or models is text, never markup: a supplier
// named <script>alert(1)</script> shows escaped in the queue and on its page.
func TestReviewServeEscapes(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	const evil = `<script>alert(1)</script>`
	text := strings.ReplaceAll(nordlichtText, "Nordlicht Druckerei GmbH", evil+" GmbH")
	answer := strings.ReplaceAll(nordlichtAnswer(), "Nordlicht Druckerei GmbH", `\u003cscript\u003ealert(1)\u003c/script\u003e GmbH`)
	key, _ := e.deskCommit("evil.txt", text, schema.V2, answer)
	srv := deskServer(t, e)
	c := deskClient(t)
	deskLogin(t, c, srv)
	for _, u := range []string{"/", "/doc/" + key} {
		r := deskDo(t, c, "GET", srv.URL+u, nil, nil)
		if r.code != http.StatusOK || strings.Contains(r.body, evil) || !strings.Contains(r.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("GET %s: %d; the supplier is not escaped:\n%.3000s", u, r.code, r.body)
		}
	}
}

// Static files are served from the binary; a path that climbs out of the
// static folder is 404, never a file of the disk.
func TestReviewServeStaticTraversal(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	setupDesk(t, e)
	srv := deskServer(t, e)
	c := deskClient(t)
	deskLogin(t, c, srv)
	if r := deskDo(t, c, "GET", srv.URL+"/static/desk.js", nil, nil); r.code != http.StatusOK || !strings.Contains(r.body, "keydown") {
		t.Fatalf("desk.js: %d", r.code)
	}
	for _, p := range []string{"/static/../go.mod", "/static/..%2f..%2fgo.mod", "/static/%2e%2e/%2e%2e/go.mod", "/static/../../../../etc/passwd",
		"/static/templates/queue.html", "/static/"} {
		r := deskDo(t, c, "GET", srv.URL+p, nil, nil)
		if r.code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404\n%.200s", p, r.code, r.body)
		}
	}
}

// A correction that does not validate is shown beside the form with what
// was typed (422) and nothing is written; a valid one stores a revision by
// the desk's actor, exactly as invx review correct does.
func TestReviewServeCorrect(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	b := setupDesk(t, e)
	srv := deskServer(t, e)
	c := deskClient(t)
	deskLogin(t, c, srv)
	page := deskDo(t, c, "GET", srv.URL+"/doc/"+b.nordlicht, nil, nil)
	csrf := deskCSRF(t, page.body)
	own := map[string]string{"Origin": srv.URL}
	u := srv.URL + "/doc/" + b.nordlicht + "/correct"
	r := deskDo(t, c, "POST", u, url.Values{"csrf": {csrf}, "sets": {"total=47x"}, "reason": {"from the PDF"}}, own)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.body, `id="correct-error"`) || !strings.Contains(r.body, "total=47x") {
		t.Fatalf("invalid correction: %d\n%.3000s", r.code, r.body)
	}
	r = deskDo(t, c, "POST", u, url.Values{"csrf": {csrf}, "sets": {"total=476.00"}}, own)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.body, "reason") {
		t.Fatalf("correction without a reason: %d", r.code)
	}
	ctx := context.Background()
	revs, err := e.store().ListRevisions(ctx, &store.ListRevisionsParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil || len(revs) != 0 {
		t.Fatalf("refused corrections stored %d revisions (%v)", len(revs), err)
	}
	r = deskDo(t, c, "POST", u, url.Values{"csrf": {csrf}, "sets": {"total=476.00\namount_due=476.00"}, "reason": {"from the PDF"}}, own)
	if r.code != http.StatusSeeOther {
		t.Fatalf("valid correction: %d\n%s", r.code, r.body)
	}
	revs, err = e.store().ListRevisions(ctx, &store.ListRevisionsParams{Tenant: "default", JobKey: b.nordlicht})
	if err != nil || len(revs) != 1 || revs[0].Actor != "ann" || revs[0].Reason != "from the PDF" || len(revs[0].Changes) != 2 {
		t.Fatalf("revisions after the correction: %+v (%v)", revs, err)
	}
	if n := openReasons(t, e, b.nordlicht); n != 0 {
		t.Errorf("the corrected total left %d reasons open", n)
	}
	page = deskDo(t, c, "GET", srv.URL+r.h.Get("Location"), nil, nil)
	if !strings.Contains(page.body, `id="done"`) || !strings.Contains(page.body, `id="revisions"`) {
		t.Errorf("the page after the correction lacks the confirmation or the history:\n%.3000s", page.body)
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine writing and
// the test reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// invx review serve prints a URL with the access token on stdout, serves
// the desk there until its context ends (Ctrl-C), then exits 130 like every
// interrupted command; a
// non-loopback address needs --allow-remote.
func TestReviewServeCommand(t *testing.T) {
	t.Parallel()
	e := setupOps(t)
	setupDesk(t, e)
	if r := e.invx(false, "review", "serve", "--actor", "ann", "--addr", "0.0.0.0:0"); r.code != cmd.ExitUsage ||
		!strings.Contains(r.stderr, "--allow-remote") {
		t.Fatalf("non-loopback address: exit %d, want %d\n%s", r.code, cmd.ExitUsage, r.stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	f := &cmd.Factory{IO: cmd.IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Env: func(string) string { return "" }}
	exit := make(chan int, 1)
	go func() {
		exit <- cmd.MainWith(ctx, f, []string{"--db", e.db, "review", "serve", "--actor", "ann", "--addr", "127.0.0.1:0"})
	}()
	var u string
	for i := 0; i < 200 && u == ""; i++ {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			u = line
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Query().Get("token") == "" || !strings.HasPrefix(pu.Host, "127.0.0.1:") {
		t.Fatalf("printed URL %q (%v); stderr:\n%s", u, err, errOut.String())
	}
	c := deskClient(t)
	base := "http://" + pu.Host
	if r := deskDo(t, c, "GET", base+"/", nil, nil); r.code != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", r.code)
	}
	if r := deskDo(t, c, "GET", u, nil, nil); r.code != http.StatusSeeOther {
		t.Fatalf("the printed URL: %d, want 303", r.code)
	}
	if r := deskDo(t, c, "GET", base+"/", nil, nil); r.code != http.StatusOK || !strings.Contains(r.body, "possible_duplicate") {
		t.Fatalf("queue: %d\n%.500s", r.code, r.body)
	}
	cancel()
	select {
	case code := <-exit:
		if code != cmd.ExitInterrupted {
			t.Fatalf("after Ctrl-C: exit %d, want %d\n%s", code, cmd.ExitInterrupted, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("review serve did not stop when its context ended")
	}
}
