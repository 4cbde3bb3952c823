package web

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/leakui/leakui/web/view"
)

// profileView is a view of a profile report beyond the top table and the flame
// graph, offered next to them when it applies to the report's profiles. Each
// registers itself in profileViews from the file that implements it.
type profileView struct {
	// label names the view in the view switcher.
	label string
	// applies reports whether the view can show these profiles.
	applies func(ps *profileSet) bool
	// page fills the page model (Extra, Notices) for the view.
	page func(s *Server, ctx context.Context, ps *profileSet, page *view.ProfileReport) error
	// json fills the JSON twin (doc.Analysis) for the view.
	json func(s *Server, ctx context.Context, ps *profileSet, doc *reportJSON) error
}

// profileViews maps the value of the view parameter to the extra view.
var profileViews = map[string]profileView{}

// extraViewLinks lists the extra views that apply to the profiles, by key.
func (ps *profileSet) extraViewLinks(path string) []view.Link {
	keys := make([]string, 0, len(profileViews))
	for k, pv := range profileViews {
		if pv.applies(ps) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	links := make([]view.Link, len(keys))
	for i, k := range keys {
		links[i] = view.Link{Label: profileViews[k].label, Current: ps.q.view == k,
			URL: ps.q.url(path, func(v url.Values) { v.Set("view", k) })}
	}
	return links
}

// extraView returns the extra view the query selects, if any; one that does not
// apply to the profiles is a 400.
func (ps *profileSet) extraView() (profileView, bool, error) {
	pv, ok := profileViews[ps.q.view]
	if !ok {
		return pv, false, nil
	}
	if !pv.applies(ps) {
		return pv, false, errorf(http.StatusBadRequest, "the %s view does not apply to %s profiles", pv.label, ps.shown().TypeNames())
	}
	return pv, true, nil
}

// extraViewNames lists the extra views' keys for an error message.
func extraViewNames() string {
	keys := make([]string, 0, len(profileViews))
	for k := range profileViews {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
