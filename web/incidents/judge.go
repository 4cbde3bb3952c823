package incidents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
)

// The bounds of what one incident's answers show.
const (
	// maxStrongest is how many of the strongest pieces of evidence the verdict
	// lists under its headline.
	maxStrongest = 10
	// maxPanels is how many series the timeline draws, one panel each.
	maxPanels = pngchart.MaxSeries
	// maxPoints is the most points a series of the timeline keeps: beyond it,
	// the minimum and maximum of each of maxPoints/2 spans.
	maxPoints = 600
	// maxUntimed is how many pieces of evidence without times are listed
	// beside the timeline.
	maxUntimed = 50
	// evidenceRows is the evidence list's page.
	evidenceRows = 50
)

// judged is an incident with the verdict over its first page of evidence.
type judged struct {
	in *store.Incident
	// sources are the evidence judged, at most store.MaxIncidentPage, in the
	// store's order (oldest first); byLink finds one by its link.
	sources []Source
	byLink  map[string]int
	verdict incident.Verdict
	// more counts the evidence attached beyond the page judged.
	more int
	// notes are the annotations in the order of their times, at most
	// store.MaxIncidentPage; moreNotes counts the rest.
	notes     []store.Annotation
	moreNotes int
}

// judge reads an incident, loads its first page of evidence and decides its
// verdict: an incident of any size is judged on at most
// store.MaxIncidentPage pieces, and says how many it left out.
func (rs Resource) judge(ctx context.Context, slug string) (*judged, error) {
	in, err := rs.Store.Incident(ctx, slug)
	if err != nil {
		return nil, err
	}
	evs, err := rs.Store.IncidentEvidence(ctx, slug, "", store.MaxIncidentPage)
	if err != nil {
		return nil, err
	}
	j := &judged{in: in, byLink: make(map[string]int, len(evs))}
	ev := make([]incident.Evidence, 0, len(evs))
	for _, e := range evs {
		src, err := rs.loadSource(ctx, e)
		if err != nil {
			return nil, err
		}
		j.byLink[src.Evidence.Link] = len(j.sources)
		j.sources = append(j.sources, src)
		ev = append(ev, src.Evidence)
	}
	j.verdict = incident.Decide(ev)
	j.more = max(int(in.Reports+in.Runs)-len(evs), 0)
	if j.notes, err = rs.Store.Annotations(ctx, slug, "", store.MaxIncidentPage); err != nil {
		return nil, err
	}
	j.moreNotes = max(int(in.Annotations)-len(j.notes), 0)
	return j, nil
}

// timeline is what the page's chart and the PNG draw: the series over one
// time axis and the markers. Its JSON is the page's data-timeline.
type timeline struct {
	Series  []timelineSeries `json:"series"`
	Markers []timelineMarker `json:"markers"`
	// Hidden counts the series beyond maxPanels, left out.
	Hidden int `json:"hidden,omitempty"`
}

// timelineSeries is one series: its name (with its source), unit, the link of
// its source, and its points as seconds since the epoch and values.
type timelineSeries struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Source string    `json:"source"`
	T      []float64 `json:"t"`
	V      []float64 `json:"v"`
}

// timelineMarker is an annotation ("annotation", with its number in the
// page's list) or an event of a source ("event").
type timelineMarker struct {
	T      float64 `json:"t"`
	Label  string  `json:"label"`
	Kind   string  `json:"kind"`
	Number int     `json:"n,omitempty"`
}

// timelineOf gathers the series of the strongest evidence first, at most
// maxPanels, each cut to maxPoints, and the annotations and events as
// markers, at most pngchart.MaxMarkers.
func (j *judged) timelineOf() timeline {
	t := timeline{Series: []timelineSeries{}, Markers: []timelineMarker{}}
	for _, e := range j.verdict.Ranked {
		i, ok := j.byLink[e.Link]
		if !ok {
			continue
		}
		for _, s := range j.sources[i].Series {
			if len(s.Points) == 0 {
				continue
			}
			if len(t.Series) == maxPanels {
				t.Hidden++
				continue
			}
			t.Series = append(t.Series, seriesOf(s, e.Link))
		}
	}
	for i, a := range j.notes {
		if len(t.Markers) == pngchart.MaxMarkers {
			break
		}
		t.Markers = append(t.Markers, timelineMarker{T: seconds(a.At), Label: a.Text, Kind: "annotation", Number: i + 1})
	}
	for _, src := range j.sources {
		for _, m := range src.Events {
			if len(t.Markers) == pngchart.MaxMarkers {
				break
			}
			t.Markers = append(t.Markers, timelineMarker{T: seconds(m.T), Label: m.Label, Kind: "event"})
		}
	}
	return t
}

// seriesOf orders a series' timed points by time and cuts it to maxPoints:
// the minimum and maximum of each span of equal count, in time order.
func seriesOf(s pngchart.Series, link string) timelineSeries {
	pts := make([]pngchart.Point, 0, len(s.Points))
	for _, p := range s.Points {
		if !p.T.IsZero() {
			pts = append(pts, p)
		}
	}
	slices.SortStableFunc(pts, func(a, b pngchart.Point) int { return a.T.Compare(b.T) })
	if len(pts) > maxPoints {
		spans := maxPoints / 2
		cut := make([]pngchart.Point, 0, maxPoints)
		for k := 0; k < spans; k++ {
			part := pts[k*len(pts)/spans : (k+1)*len(pts)/spans]
			lo, hi := 0, 0
			for i, p := range part {
				if p.V < part[lo].V {
					lo = i
				}
				if p.V > part[hi].V {
					hi = i
				}
			}
			cut = append(cut, part[min(lo, hi)])
			if lo != hi {
				cut = append(cut, part[max(lo, hi)])
			}
		}
		pts = cut
	}
	out := timelineSeries{Name: s.Name, Unit: s.Unit, Source: link, T: make([]float64, len(pts)), V: make([]float64, len(pts))}
	for i, p := range pts {
		out.T[i], out.V[i] = seconds(p.T), p.V
	}
	return out
}

// seconds is a time as the chart's x: seconds since the epoch, to the
// millisecond.
func seconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// minPanelHeight is the least height in pixels an image gives each panel:
// pngchart draws nothing of panels much lower, so a small image draws the
// strongest evidence's series that fit.
const minPanelHeight = 56

// chart is the timeline as pngchart draws it, with as many series as fit the
// height.
func (t timeline) chart(width, height int) pngchart.Timeline {
	c := pngchart.Timeline{Width: width, Height: height}
	series := t.Series
	if fit := max((height-2*minPanelHeight)/minPanelHeight, 1); len(series) > fit {
		series = series[:fit]
	}
	for _, s := range series {
		ps := pngchart.Series{Name: s.Name, Unit: s.Unit, Points: make([]pngchart.Point, len(s.T))}
		for i := range s.T {
			ps.Points[i] = pngchart.Point{T: time.UnixMilli(int64(s.T[i] * 1000)).UTC(), V: s.V[i]}
		}
		c.Series = append(c.Series, ps)
	}
	for _, m := range t.Markers {
		c.Markers = append(c.Markers, pngchart.Marker{T: time.UnixMilli(int64(m.T * 1000)).UTC(), Label: m.Label})
	}
	return c
}

// key names a rendering of the timeline at a size: the digest of what it
// draws, so that an image changes exactly when its picture does.
func (t timeline) key(width, height int) string {
	b, _ := json.Marshal(t)
	sum := sha256.Sum256(fmt.Appendf(b, "|%dx%d", width, height))
	return hex.EncodeToString(sum[:12])
}
