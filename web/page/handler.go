package page

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"github.com/leakui/leakui/web/view"
)

// HandlerFunc is a handler that returns its error instead of writing it; the
// server's wrapper turns the error into a status and a page or JSON body, once.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// WantsJSON tells API callers (paths under /api/, or an Accept header preferring
// JSON) from browsers.
func WantsJSON(r *http.Request) bool {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return true
	}
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/html")
}

// JSON writes v as JSON with the status.
func JSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

// ValidUTF8 replaces the invalid UTF-8 in a page with U+FFFD, as encoding/json
// does in the JSON twin: a function name, a file name or a log line from an
// input may carry any bytes, and a page declared UTF-8 must be UTF-8.
func ValidUTF8(pg []byte) []byte {
	if utf8.Valid(pg) {
		return pg
	}
	return bytes.ToValidUTF8(pg, []byte("\uFFFD"))
}

// Fragment renders a component alone (no layout), for the page's scripts
// to insert.
func Fragment(w http.ResponseWriter, r *http.Request, c templ.Component) error {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(ValidUTF8(buf.Bytes()))
	return err
}

func URLParam(r *http.Request, name string) string { return chi.URLParam(r, name) }

// Renderer renders a page (the layout around content) into a buffer first, then
// writes it with the status, so that a rendering error still becomes a proper
// status. The web root's Server provides it.
type Renderer func(w http.ResponseWriter, r *http.Request, status int, p view.Page, content templ.Component) error
