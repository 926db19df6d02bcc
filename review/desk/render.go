package desk

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/invx/invx/schema"
	"github.com/invx/invx/store"
)

var funcs = template.FuncMap{
	"change": func(field string, raw []byte) string {
		s := string(raw)
		if field == "supplier_iban" && strings.HasPrefix(s, `"`) {
			return `"` + schema.MaskIBAN(strings.Trim(s, `"`)) + `"`
		}
		return s
	},
	"dash": func(s string) string {
		if s == "" {
			return "—"
		}
		return s
	},
}

// render executes a page into a buffer first, so a template error is a 500
// and never half a page.
func (d *Desk) render(w http.ResponseWriter, r *http.Request, name string, v any) {
	d.renderStatus(w, r, http.StatusOK, name, v)
}

func (d *Desk) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, v any) {
	var buf bytes.Buffer
	if err := d.tmpl.ExecuteTemplate(&buf, name, v); err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail answers an error: 404 for an unknown job, else 500 with a generic
// text (the detail goes to the log, never document text).
func (d *Desk) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "404 not found: no such document for this tenant", http.StatusNotFound)
		return
	}
	d.cfg.Log.Error("review desk", "path", r.URL.Path, "err", err)
	http.Error(w, "500 internal error: see invx's log", http.StatusInternalServerError)
}
