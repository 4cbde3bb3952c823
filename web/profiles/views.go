package profiles

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// profileView is a view of a profile report beyond the top table and the flame
// graph, offered next to them when it applies to the report's profiles.
type profileView struct {
	// key is the value of the view parameter that selects it.
	key string
	// label names the view in the view switcher.
	label string
	// applies reports whether the view can show these profiles.
	applies func(ps *profileSet) bool
	// page fills the page model (Extra, Notices) for the view.
	page func(s *Kind, ctx context.Context, ps *profileSet, pg *view.ProfileReport) error
	// json fills the JSON twin (doc.Analysis) for the view.
	json func(s *Kind, ctx context.Context, ps *profileSet, doc *kind.ReportJSON) error
}

// profileViews lists the extra views in the order the view switcher shows them.
// It is a function because the views' functions reach back to it.
func profileViews() []profileView {
	return []profileView{
		{
			key:     viewGoroutines,
			label:   "goroutine groups",
			applies: func(ps *profileSet) bool { return ps.shown().IsGoroutineProfile() },
			page:    (*Kind).goroutineProfilePage,
			json:    (*Kind).goroutineProfileJSON,
		},
		sandwichView(),
		labelsProfileView(),
		callGraphProfileView(),
	}
}

// lookupProfileView returns the extra view whose key is key.
func lookupProfileView(key string) (profileView, bool) {
	for _, pv := range profileViews() {
		if pv.key == key {
			return pv, true
		}
	}
	return profileView{}, false
}

// extraViewLinks lists the extra views that apply to the profiles.
func (ps *profileSet) extraViewLinks(path string) []view.Link {
	var links []view.Link
	for _, pv := range profileViews() {
		if pv.applies(ps) {
			links = append(links, view.Link{Label: pv.label, Current: ps.q.view == pv.key,
				URL: ps.q.url(path, func(v url.Values) { v.Set("view", pv.key) })})
		}
	}
	return links
}

// extraView returns the extra view the query selects, if any; one that does not
// apply to the profiles is a 400.
func (ps *profileSet) extraView() (profileView, bool, error) {
	pv, ok := lookupProfileView(ps.q.view)
	if !ok {
		return pv, false, nil
	}
	if !pv.applies(ps) {
		return pv, false, serrors.Errorf(http.StatusBadRequest, "the %s view does not apply to %s profiles", pv.label, ps.shown().TypeNames())
	}
	return pv, true, nil
}

// extraViewNames lists the extra views' keys for an error message.
func extraViewNames() string {
	var keys []string
	for _, pv := range profileViews() {
		keys = append(keys, pv.key)
	}
	return strings.Join(keys, ", ")
}
