package incidents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
)

// CardWidth and CardHeight are the size of a report's or run's card, what
// link unfurls show (og:image): the 1.91:1 they crop to.
const (
	CardWidth  = 1200
	CardHeight = 630
)

// Card is GET /r/{id}/card.png and /runs/{id}/card.png: what the report or run
// says on an incident's timeline (its kind's kind.Evidence: its series and
// events), drawn by pngchart as a PNG for link unfurls, which ignore SVG.
// Its title is the verdict; evidence without values over time draws a note
// that says so under it. The image is
// cached by what it draws, with that as its ETag, and a render charges the
// memory budget what it allocates first.
func (rs Resource) Card(kind string) page.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		src, err := rs.Load(r.Context(), store.Evidence{Kind: kind, ID: page.URLParam(r, "id")})
		if err != nil {
			return err
		}
		chart := pngchart.Timeline{Width: CardWidth, Height: CardHeight, Title: cardTitle(src.Evidence)}
		for _, sr := range src.Series {
			if len(sr.Points) > 0 && len(chart.Series) < cardPanels {
				chart.Series = append(chart.Series, sr)
			}
		}
		chart.Markers = src.Events
		if len(chart.Markers) > pngchart.MaxMarkers {
			chart.Markers = chart.Markers[:pngchart.MaxMarkers]
		}
		b, err := json.Marshal(chart)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		key := "card|" + hex.EncodeToString(sum[:12])
		etag := `"` + key[len("card|"):] + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "no-cache")
		if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		img, ok := rs.Images.Get(key)
		if !ok {
			cost := chart.Cost()
			if err := rs.Budget.Charge(cost); err != nil {
				return err
			}
			var buf bytes.Buffer
			err := pngchart.RenderTimeline(&buf, chart)
			rs.Budget.Uncharge(cost)
			if err != nil {
				return fmt.Errorf("card of %s %s: %w", kind, page.URLParam(r, "id"), err)
			}
			img = buf.Bytes()
			rs.Images.Add(key, img)
		}
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", strconv.Itoa(len(img)))
		_, err = w.Write(img)
		return err
	}
}

// cardTitle is a card's title: the verdict and what it found, with its
// number, or what the kind says of a report that judges nothing (pngchart cuts
// it at MaxNameRunes).
func cardTitle(ev incident.Evidence) string {
	if ev.Finding == "" {
		return ev.Kind + ": " + ev.Strength.String()
	}
	return ev.Strength.String() + ": " + ev.Finding
}

// cardPanels is how many series a card draws: the panels that fit its height.
const cardPanels = 4

// SourceCost is what a cached source holds, about.
func SourceCost(src Source) int64 {
	n := int64(1024 + len(src.Evidence.Sentence) + len(src.Evidence.Finding))
	for _, s := range src.Series {
		n += int64(64 + len(s.Name) + 48*len(s.Points))
	}
	return n + int64(64*len(src.Events))
}

// RunStore reads the lab's runs.
type RunStore interface {
	Run(ctx context.Context, id string) (*store.Run, error)
}

// RunSource judges lab run id by its verdict, and marks its start and end;
// final tells a finished run, whose source never changes.
func RunSource(ctx context.Context, st RunStore, id string) (src Source, final bool, err error) {
	run, err := st.Run(ctx, id)
	if err != nil {
		return Source{}, false, err
	}
	var spec lab.Spec
	page.Unmarshal(run.Spec, &spec)
	title := spec.Title()
	if title == "" {
		title = run.Workload
	}
	ev := incident.FromRun(title, run.Verdict, run.Reason, run.CreatedAt, run.FinishedAt, page.RunURL(run.ID))
	src = Source{Evidence: ev, Events: []pngchart.Marker{{T: run.CreatedAt, Label: "lab run started: " + title}}}
	if !run.FinishedAt.IsZero() {
		end := "lab run " + run.Status
		if run.Verdict != "" {
			end += ": " + run.Verdict
		}
		src.Events = append(src.Events, pngchart.Marker{T: run.FinishedAt, Label: end})
	}
	// What the run's model kept open after each step (started − closed).
	var progress lab.Progress
	page.Unmarshal(run.Progress, &progress)
	open := pngchart.Series{Name: "lab run: still open (" + title + ")", Unit: "count"}
	for _, p := range progress.Points {
		if p.At > 0 {
			open.Points = append(open.Points, pngchart.Point{T: time.UnixMilli(p.At).UTC(), V: float64(p.Open)})
		}
	}
	src.Series = append(src.Series, open)
	return src, !run.FinishedAt.IsZero(), nil
}
