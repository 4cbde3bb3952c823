package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/incidents"
	"github.com/leakui/leakui/web/page"
)

// The size of a report's or run's card, what link unfurls show (og:image):
// the 1.91:1 they crop to.
const (
	cardWidth  = 1200
	cardHeight = 630
)

// card is GET /r/{id}/card.png and /runs/{id}/card.png: what the report or run
// says on an incident's timeline (its kind's kind.Evidence: its series and
// events), drawn by pngchart as a PNG for link unfurls, which ignore SVG.
// Its title is the verdict; evidence without values over time draws a note
// that says so under it. The image is
// cached by what it draws, with that as its ETag, and a render charges the
// memory budget what it allocates first.
func (iw incidentWiring) card(kind string) page.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		s := iw.s
		src, err := iw.source(r.Context(), store.Evidence{Kind: kind, ID: page.URLParam(r, "id")})
		if err != nil {
			return err
		}
		chart := pngchart.Timeline{Width: cardWidth, Height: cardHeight, Title: cardTitle(src.Evidence)}
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
		img, ok := iw.images.Get(key)
		if !ok {
			cost := chart.Cost()
			if err := s.budget.Charge(cost); err != nil {
				return err
			}
			var buf bytes.Buffer
			err := pngchart.RenderTimeline(&buf, chart)
			s.budget.Uncharge(cost)
			if err != nil {
				return fmt.Errorf("card of %s %s: %w", kind, page.URLParam(r, "id"), err)
			}
			img = buf.Bytes()
			iw.images.Add(key, img)
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

// cardImage is the og:image of a report's or run's page, "" for any other page
// or a server whose store keeps no incidents (no cards then).
func (s incidentPages) cardImage(r *http.Request) string {
	if _, ok := s.store.(incidents.Store); !ok {
		return ""
	}
	path := r.URL.Path
	for _, prefix := range []string{"/r/", "/runs/"} {
		if id, ok := strings.CutPrefix(path, prefix); ok && store.ValidID(id) {
			return page.Absolute(r, path+"/card.png")
		}
	}
	return ""
}
