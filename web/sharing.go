package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// ParseBaseURL checks a -base-url: an absolute http or https URL with a host and
// neither query nor fragment. It returns it without a trailing slash.
func ParseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return "", fmt.Errorf("the base URL must be an http or https URL such as https://leakui.example.com, not %q", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// withBaseURL puts Config.BaseURL into every request's context, so that links
// written for other places (the upload API's report_url, Markdown summaries)
// start with it.
func (s *Server) withBaseURL(next http.Handler) http.Handler {
	if s.cfg.BaseURL == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(page.WithBaseURL(r.Context(), s.cfg.BaseURL)))
	})
}

// reportVerdict is a report's verdict when its summary holds one ("leak",
// "no leak", …): a lab run's, a series', or a JVM histogram series'.
func reportVerdict(summary json.RawMessage) string {
	var s struct {
		Verdict       string `json:"verdict"`
		SeriesVerdict string `json:"series_verdict"`
	}
	if json.Unmarshal(summary, &s) != nil {
		return ""
	}
	if s.Verdict != "" {
		return s.Verdict
	}
	return s.SeriesVerdict
}

// contentDisposition names a download after the file it was uploaded as: an
// ASCII filename for old clients (anything else becomes "_") and the exact
// name in RFC 5987's filename* (UTF-8, percent-encoded). fallback names a file
// that has no name.
func contentDisposition(name, fallback string) string {
	name = path.Base(strings.ReplaceAll(safeFileName(name), "\\", "/"))
	if name == "upload" || name == "" {
		name = fallback
	}
	ascii := strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII || r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r == '/' || r == ';' || r == '%' {
			return '_'
		}
		return r
	}, name)
	return `attachment; filename="` + ascii + `"; filename*=UTF-8''` + rfc5987Escape(name)
}

// rfc5987Escape percent-encodes every byte of s that is not an attr-char of RFC
// 5987 (letters, digits and !#$&+-.^_`|~).
func rfc5987Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// resolveArtifactPrefix turns a SHA-256 prefix of at least 12 hex characters into
// the one artifact it names: 404 when none, 409 listing them when several.
func resolveArtifactPrefix(ctx context.Context, st Store, prefix string) (string, error) {
	prefix = strings.ToLower(prefix) // as a person may copy it from elsewhere
	if !store.ValidSHA256Prefix(prefix) {
		return "", serrors.Errorf(http.StatusNotFound, "no artifact %q: give its SHA-256 or at least its first %d hex characters", prefix, store.MinArtifactPrefix)
	}
	const listed = 10
	shas, err := st.ArtifactsWithPrefix(ctx, prefix, listed+1)
	if err != nil {
		return "", err
	}
	switch {
	case len(shas) == 0:
		return "", serrors.Errorf(http.StatusNotFound, "no artifact's SHA-256 starts with %s", prefix)
	case len(shas) == 1:
		return shas[0], nil
	}
	more := ""
	if len(shas) > listed {
		shas, more = shas[:listed], " and more"
	}
	return "", serrors.Errorf(http.StatusConflict, "%s is the start of several artifacts' SHA-256: %s%s; give more of it", prefix, strings.Join(shas, ", "), more)
}

// handleFavicon is GET /favicon.ico, which browsers ask for on their own: a
// redirect to the hashed SVG icon every page also names.
func (a *assets) handleFavicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=86400")
	http.Redirect(w, r, a.url("favicon.svg"), http.StatusMovedPermanently)
}
