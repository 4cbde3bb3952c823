package profiles

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/serrors"
)

// The report kinds a Kind shows: one profile, a diff of two, a series of more.
const (
	ReportSingle = modeSingle
	ReportDiff   = modeDiff
	ReportSeries = modeSeries
)

// Kind is pprof profiles as a kind of evidence: uploads of profiles, their
// reports' pages (top table, flame graphs, sandwich, goroutine groups of a
// goroutine profile), JSON, Markdown, flame.svg, totals.svg of a series, the
// compare form, and the series report of a lab run's captures.
type Kind struct {
	d *kind.Deps
	// profiles are the parsed profiles by hash, flames their flame trees; both
	// are the root's, charged to the server's budget.
	profiles *kind.Cache[*pprof.Profile]
	flames   *kind.Cache[*flameTreeEntry]
	// views bounds the flame graphs built at once.
	views *viewQueue
	dumps *groups.Dumps
}

// Caches are the caches a Kind keeps its parsed profiles and flame trees in.
type Caches struct {
	Profiles *kind.Cache[*pprof.Profile]
	Flames   *kind.Cache[*FlameTree]
}

// FlameTree is a profile's flame tree for one sample type and filter, as the
// flame cache keeps it.
type FlameTree = flameTreeEntry

// NewCaches makes the caches of parsed profiles and of their flame trees,
// registered in cs in that order.
func NewCaches(cs *kind.Caches) Caches {
	c := Caches{Profiles: kind.NewSizedCache(16, profileCacheBytes, (*pprof.Profile).MemSize), Flames: kind.NewCache[*flameTreeEntry](16)}
	kind.Register(cs, "profiles", c.Profiles)
	c.Flames.SetCost(flameCacheBytes, flameCost)
	kind.Register(cs, "flames", c.Flames)
	return c
}

// profileCacheBytes bounds what the parsed-profile cache keeps, by the
// profiles' estimated size: a profile of 5 million samples holds about 100 MB.
const profileCacheBytes = 256 << 20

// New is the profiles kind over d, keeping what it parses in c and grouping a
// goroutine profile's goroutines through dumps.
func New(d *kind.Deps, c Caches, dumps *groups.Dumps, views int) *Kind {
	return &Kind{d: d, profiles: c.Profiles, flames: c.Flames, dumps: dumps, views: newViewQueue(views*viewSlots, viewWait)}
}

// Input is analyze.KindProfile.
func (s *Kind) Input() analyze.Kind { return analyze.KindProfile }

// Reports are "profile", "diff" and "series".
func (s *Kind) Reports() []string { return []string{modeSingle, modeDiff, modeSeries} }

// Accepted is the upload page's line for profiles.
func (s *Kind) Accepted() []string {
	return []string{"pprof profiles: heap, allocs, goroutine, goroutineleak (the Go runtime's proof of leaked goroutines), CPU, block, mutex, threadcreate (profile.proto, gzipped or not, and the legacy text and binary formats)"}
}

// Plan parses every uploaded profile (see planProfiles).
func (s *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.planProfiles(up)
}

// Page renders a profile, diff or series report.
func (s *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	return s.showProfiles(w, r, rep)
}

// JSON fills a profile report's JSON twin.
func (s *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	return s.profilesJSON(r, rep, doc)
}

// Markdown writes a profile report's Markdown summary.
func (s *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	return s.profilesMarkdown(w, r, rep)
}

// Summary is the dashboard's line for a profile report.
func (s *Kind) Summary(raw json.RawMessage) string { return profileSummaryLine(raw) }

// Chart answers totals.svg, the totals of a series of three or more profiles.
func (s *Kind) Chart(w http.ResponseWriter, r *http.Request, rep *store.Report, file string) error {
	if file != "totals.svg" || len(rep.Artifacts) < 3 {
		return serrors.Errorf(http.StatusNotFound, "report %s has no chart %q: a series of three or more profiles has totals.svg", rep.ID, file)
	}
	ps, err := s.loadProfileSet(r, rep)
	if err != nil {
		return err
	}
	defer ps.release()
	var notices []string
	srep, err := ps.profileSeries(&notices)
	if err != nil {
		return err
	}
	return chart.WriteSVG(w, chart.TotalsLine(srep))
}

// FlameImage is GET /r/{id}/flame.svg.
func (s *Kind) FlameImage(w http.ResponseWriter, r *http.Request) error {
	return s.handleReportFlameImage(w, r)
}

// Compare is POST /r/{id}/compare: a diff of a profile report against another
// profile.
func (s *Kind) Compare(w http.ResponseWriter, r *http.Request) error { return s.compare(w, r) }

// Load returns an artifact's parsed profile, from the cache when it is there.
func (s *Kind) Load(ctx context.Context, sha string) (*pprof.Profile, error) {
	return s.loadProfile(ctx, sha)
}

// SideRows is how many rows the top table beside a flame graph shows.
const SideRows = sideRows

// HoldViews takes every slot for building flame graphs and makes a view wait at
// most wait for one; release gives the slots back. Tests use it to see what a
// view that finds no slot answers.
func (s *Kind) HoldViews(wait time.Duration) (release func()) {
	s.views.wait = wait
	for range cap(s.views.slots) {
		s.views.slots <- struct{}{}
	}
	return func() {
		for range cap(s.views.slots) {
			<-s.views.slots
		}
	}
}
