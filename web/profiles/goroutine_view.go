package profiles

import (
	"context"
	"fmt"
	"net/url"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// viewGoroutines is the goroutine groups view of a goroutine profile report.
const viewGoroutines = "goroutines"

// goroutineProfileReport groups the goroutine profile a profile report shows, or,
// in a diff or a series, compares its base (the first) with its target (the last);
// the profile's focus and ignore filters keep and drop whole groups.
func (s *Kind) goroutineProfileReport(ctx context.Context, ps *profileSet, notices *[]string) (mode string, base, target string, rep *goroutines.Report, err error) {
	q, arts := ps.q, ps.rep.Artifacts
	mode = groups.ModeDump
	target = arts[q.file].SHA256
	switch q.mode {
	case modeDiff:
		mode, base, target = groups.ModeDiff, arts[q.base].SHA256, arts[q.target].SHA256
	case modeSeries:
		mode, base, target = groups.ModeDiff, arts[0].SHA256, arts[len(arts)-1].SHA256
	}
	shared, err := s.dumps.Report(ctx, base, target, "")
	if err != nil {
		return mode, base, target, nil, err
	}
	if !q.filter.Active() {
		return mode, base, target, shared, nil
	}
	cut := *shared
	var m pprof.FilterMatches
	cut.Groups, m = groups.Filter(shared.Groups, q.filter)
	for _, name := range q.filter.Unmatched(m) {
		switch name {
		case "focus", "ignore":
			*notices = append(*notices, fmt.Sprintf("The %s filter %q matched no goroutine group.", name, ps.filterText(name)))
		default:
			*notices = append(*notices, fmt.Sprintf("The %s filter shapes the top table and the flame graph; goroutine groups keep their whole stacks.", name))
		}
	}
	return mode, base, target, &cut, nil
}

// goroutineProfilePage fills a profile report page with the goroutine groups.
func (s *Kind) goroutineProfilePage(ctx context.Context, ps *profileSet, pg *view.ProfileReport) error {
	_, _, _, rep, err := s.goroutineProfileReport(ctx, ps, &pg.Notices)
	if err != nil {
		return err
	}
	path := page.ReportURL(ps.rep.ID)
	q, arts := ps.q, ps.rep.Artifacts
	names := [2]string{arts[q.base].Name, arts[q.target].Name}
	if q.mode == modeSeries {
		names = [2]string{arts[0].Name, arts[len(arts)-1].Name}
	}
	showAll := ""
	if q.rows > 0 {
		showAll = q.url(path, func(v url.Values) { v.Set("n", "all") })
	}
	pg.Extra = view.GoroutineGroupsView(groups.View(rep, q.rows, showAll, names))
	return nil
}

// goroutineProfileJSON fills the JSON twin's analysis with the goroutine groups.
func (s *Kind) goroutineProfileJSON(ctx context.Context, ps *profileSet, doc *kind.ReportJSON) error {
	mode, base, target, rep, err := s.goroutineProfileReport(ctx, ps, &doc.Notices)
	if err != nil {
		return err
	}
	doc.Analysis = groups.Analysis(mode, base, target, rep, ps.q.rows)
	return nil
}
