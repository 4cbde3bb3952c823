package alert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
)

// Incidents keeps the incidents the watches' alerts open: a leak alert opens
// an incident for its watch, or joins the one the watch's last leak opened
// while it is still open (an annotation on its timeline); a resolved alert
// annotates the incident it went to. Whether the incident is over stays the
// responders' call: a resolved alert never resolves it.
type Incidents struct {
	db  *store.DB
	log *slog.Logger
}

// NewIncidents returns the incidents of the alerts, in db.
func NewIncidents(db *store.DB, log *slog.Logger) *Incidents {
	if log == nil {
		log = slog.Default()
	}
	return &Incidents{db: db, log: log}
}

// IncidentAuthor is the author of the annotations alerts write.
const IncidentAuthor = "leakui watch"

// Record opens, joins or annotates the incident of e, and returns its slug
// ("" when e neither fires nor resolves, or resolves a watch whose alerts
// went to no incident).
func (in *Incidents) Record(ctx context.Context, e Event) (string, error) {
	if err := e.check(); err != nil {
		return "", err
	}
	w, err := in.db.Watch(ctx, e.Watch)
	if err != nil {
		return "", err
	}
	switch {
	case e.Firing():
		return in.open(ctx, w, e)
	case e.Resolving():
		if w.Incident == "" {
			return "", nil
		}
		text := fmt.Sprintf("Watch %s: the leak verdict cleared (now %s).", e.Watch, e.To)
		return w.Incident, in.annotate(ctx, w.Incident, e, text)
	}
	return "", nil
}

// open joins the watch's incident when it is open, else opens one.
func (in *Incidents) open(ctx context.Context, w *store.Watch, e Event) (string, error) {
	text := fmt.Sprintf("Watch %s: leak suspected", e.Watch)
	if e.Suspect != "" {
		text += ": " + e.Suspect
	}
	if e.GrowthPerHour > 0 {
		if w := e.window(); w > 0 && w < watch.MinRateWindow {
			text += ", having grown " + grouped(int64(math.Round(e.GrowthPerHour*w.Hours()))) + " in " + watch.WindowText(w)
		} else {
			text += ", growing " + grouped(int64(e.GrowthPerHour)) + " an hour"
		}
	}
	text += "."
	if w.Incident != "" {
		cur, err := in.db.Incident(ctx, w.Incident)
		switch {
		case err == nil && cur.State == store.IncidentOpen:
			return w.Incident, in.annotate(ctx, w.Incident, e, text)
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	slug := incidentSlug(e.Watch, e.At)
	title := "Leak suspected on watch " + e.Watch
	if e.Suspect != "" {
		title += ": " + e.Suspect
	}
	inc := &store.Incident{Slug: slug, Title: clipRunes(title, store.MaxTitleRunes)}
	err := in.db.CreateIncident(ctx, inc)
	if err != nil && !errors.Is(err, store.ErrInvalid) {
		return "", err
	}
	if err != nil {
		// The slug is taken: the same change told again joins what it opened.
		if _, gerr := in.db.Incident(ctx, slug); gerr != nil {
			return "", err
		}
	}
	if err := in.db.SetWatchIncident(ctx, e.Watch, slug); err != nil {
		return "", err
	}
	return slug, in.annotate(ctx, slug, e, text)
}

// annotate adds text, with the watch's link, at the change's time.
func (in *Incidents) annotate(ctx context.Context, slug string, e Event, text string) error {
	if e.ReportURL != "" {
		text += " " + e.ReportURL
	}
	return in.db.Annotate(ctx, slug, &store.Annotation{At: e.At, Text: clipRunes(text, store.MaxAnnotationRunes), Author: IncidentAuthor})
}

// incidentSlug names the incident a watch's leak opens: "leak-", the
// watch's name in lowercase letters, digits and single dashes, and the
// change's time to the second (UTC).
func incidentSlug(watch string, at time.Time) string {
	var b strings.Builder
	dash := true
	for _, r := range strings.ToLower(watch) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-")
	suffix := at.UTC().Format("20060102-150405")
	if room := store.MaxSlugLen - len("leak--") - len(suffix); len(name) > room {
		name = strings.Trim(name[:room], "-")
	}
	if name == "" {
		return "leak-" + suffix
	}
	return "leak-" + name + "-" + suffix
}

// clipRunes cuts s to n runes.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// grouped writes n with its thousands separated by commas.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
