package incidents

import (
	"context"
	"strings"

	"github.com/a-h/templ"

	"github.com/leakui/leakui/store"
)

// maxOffered is how many open incidents the dashboard lists and the attach
// form offers.
const maxOffered = 20

// Around returns a root page's content with the incident parts around it:
// the open incidents above the dashboard (path "/") and the form that creates
// one under it, and under a report's or
// a run's page (/r/{id}, /runs/{id}) the form that attaches it to one of
// them. Where no incident is open a report's or run's page is the content
// alone.
func Around(ctx context.Context, st Store, path string, content templ.Component) (templ.Component, error) {
	var action string
	switch {
	case path == "/":
	case strings.HasPrefix(path, "/r/") && store.ValidID(path[len("/r/"):]):
		action = path + "/incident"
	case strings.HasPrefix(path, "/runs/") && store.ValidID(path[len("/runs/"):]):
		action = path + "/incident"
	default:
		return content, nil
	}
	found, err := st.SearchIncidents(ctx, store.IncidentSearch{State: store.IncidentOpen, Limit: maxOffered})
	if err != nil {
		return content, err
	}
	if len(found) == 0 {
		if action == "" {
			return around(nil, content, quickCreate()), nil
		}
		return content, nil
	}
	items := make([]listItem, len(found))
	for i, in := range found {
		items[i] = listItem{Slug: in.Slug, URL: URL(in.Slug), Title: in.Title, State: in.State, Updated: formatTime(in.UpdatedAt),
			Reports: in.Reports, Runs: in.Runs, Annotations: in.Annotations}
	}
	if action == "" {
		return around(OpenList(items), content, quickCreate()), nil
	}
	return around(nil, content, attachOpen(action, items)), nil
}
