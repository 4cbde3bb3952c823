package incidents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/internal/pngchart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// maxBody bounds a write's request body: the longest field is a ticket URL
// or an annotation, a few kilobytes.
const maxBody = 64 << 10

// The timeline image's default size, the size link unfurls show (1.91:1),
// and the bounds a request may ask within.
const (
	imageWidth, imageHeight = 1200, 630
)

// createInput is what creates an incident: POST /i (a form) or
// /api/incidents (JSON).
type createInput struct {
	Slug      string `json:"slug"`
	Title     string `json:"title"`
	TicketURL string `json:"ticket_url"`
}

// readInput reads a write's body into v: JSON when it is sent as JSON, else a
// form whose fields are v's JSON names.
func readInput(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return serrors.Errorf(http.StatusRequestEntityTooLarge, "the request body is larger than %d bytes", maxBody)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return serrors.Errorf(http.StatusBadRequest, "bad JSON: %v", err)
		}
		return nil
	}
	if err := r.ParseForm(); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	fields := map[string]string{}
	for k := range r.PostForm {
		fields[k] = r.PostForm.Get(k)
	}
	b, _ := json.Marshal(fields)
	if err := json.Unmarshal(b, v); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	return nil
}

// done answers a write: JSON for API callers, else a redirect to the page.
func done(w http.ResponseWriter, r *http.Request, status int, to string, v any) error {
	if page.WantsJSON(r) {
		return page.JSON(w, status, v)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// list is GET /i and /api/incidents: one page of incidents, open ones first,
// found by ?q= in their slug, title, ticket or verdicts; ?state= keeps one
// state and ?after= is the next page's cursor.
func (rs Resource) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p := listPage{Query: q.Get("q"), State: q.Get("state")}
	items, next, err := rs.search(r, store.IncidentSearch{Text: p.Query, State: p.State, After: q.Get("after")})
	if err != nil {
		return err
	}
	p.Items, p.Next = items, next
	if page.WantsJSON(r) {
		return page.JSON(w, http.StatusOK, listJSONOf(r, items, next))
	}
	return rs.render(w, r, http.StatusOK, view.Page{Title: "incidents"}, listView(p))
}

// search reads one page of incidents and the next page's URL.
func (rs Resource) search(r *http.Request, s store.IncidentSearch) ([]listItem, string, error) {
	s.Limit = evidenceRows
	found, err := rs.Store.SearchIncidents(r.Context(), s)
	if err != nil {
		return nil, "", err
	}
	items := make([]listItem, len(found))
	for i, in := range found {
		items[i] = listItem{Slug: in.Slug, URL: URL(in.Slug), Title: in.Title, TicketURL: in.TicketURL, State: in.State,
			Updated: formatTime(in.UpdatedAt), Reports: in.Reports, Runs: in.Runs, Annotations: in.Annotations}
	}
	next := ""
	if len(found) == s.Limit {
		v := url.Values{}
		if s.Text != "" {
			v.Set("q", s.Text)
		}
		if s.State != "" {
			v.Set("state", s.State)
		}
		v.Set("after", store.IncidentCursor(found[len(found)-1]))
		next = r.URL.Path + "?" + v.Encode()
	}
	return items, next, nil
}

// create is POST /i and /api/incidents.
func (rs Resource) create(w http.ResponseWriter, r *http.Request) error {
	var in createInput
	if err := readInput(w, r, &in); err != nil {
		return err
	}
	inc := store.Incident{Slug: strings.TrimSpace(in.Slug), Title: in.Title, TicketURL: in.TicketURL}
	if err := rs.Store.CreateIncident(r.Context(), &inc); err != nil {
		if errors.Is(err, store.ErrInvalid) && !page.WantsJSON(r) {
			// The form is shown again with what was typed and why it was refused.
			p := listPage{Form: in, Error: serrors.OneLine(err.Error())}
			return rs.render(w, r, http.StatusBadRequest, view.Page{Title: "incidents"}, listView(p))
		}
		return err
	}
	return done(w, r, http.StatusCreated, URL(inc.Slug), incidentHeadJSON(r, &inc))
}

// show is GET /i/{slug}, /i/{slug}.md, /i/{slug}.json and
// /api/incidents/{slug}.
func (rs Resource) show(w http.ResponseWriter, r *http.Request) error {
	ref := page.URLParam(r, "ref")
	format := "html"
	switch {
	case strings.HasSuffix(ref, ".md"):
		ref, format = strings.TrimSuffix(ref, ".md"), "md"
	case strings.HasSuffix(ref, ".json"):
		ref, format = strings.TrimSuffix(ref, ".json"), "json"
	case page.WantsJSON(r):
		format = "json"
	}
	j, err := rs.judge(r.Context(), ref)
	if err != nil {
		return err
	}
	switch format {
	case "md":
		return rs.markdown(w, r, j)
	case "json":
		return page.JSON(w, http.StatusOK, incidentJSONOf(r, j))
	}
	p, err := rs.pageOf(r, j)
	if err != nil {
		return err
	}
	desc := capitalize(j.verdict.Strength.String()) + ": " + j.verdict.Headline
	if j.verdict.Lead < 0 {
		desc = j.verdict.Headline
	}
	return rs.render(w, r, http.StatusOK, view.Page{Title: "incident " + j.in.Slug + ": " + j.in.Title, Description: desc,
		Image: page.Absolute(r, TimelineURL(j.in.Slug))}, incidentView(p))
}

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pageOf builds the incident's page: the verdict, the timeline, the evidence
// without times, one page of the evidence list (?after=) and the annotations.
func (rs Resource) pageOf(r *http.Request, j *judged) (incidentPage, error) {
	in, v := j.in, j.verdict
	p := incidentPage{Slug: in.Slug, Title: in.Title, TicketURL: in.TicketURL, State: in.State,
		Created: formatTime(in.CreatedAt), Updated: formatTime(in.UpdatedAt), Reports: in.Reports, Runs: in.Runs, Annotations: in.Annotations,
		MarkdownURL: MarkdownURL(in.Slug), JSONURL: JSONURL(in.Slug), ImageURL: TimelineURL(in.Slug),
		Strength: strengthClass(v.Strength), Badge: v.Strength.String(), Headline: v.Headline, Lead: v.Link, LeadNumber: v.Number,
		Judged: len(j.sources), More: j.more, MoreNotes: j.moreNotes}
	for i, e := range v.Ranked {
		if i == maxStrongest || e.Strength == incident.None {
			break
		}
		p.Strongest = append(p.Strongest, rowOf(e))
	}
	for _, c := range v.Contradictions {
		p.Contradictions = append(p.Contradictions, c.Text)
	}
	t := j.timelineOf()
	b, err := json.Marshal(t)
	if err != nil {
		return p, err
	}
	p.Timeline, p.Hidden = string(b), t.Hidden
	for _, s := range t.Series {
		p.Panels = append(p.Panels, panelRow{Name: s.Name, Unit: unitName(s.Unit), Source: s.Source, Points: len(s.T)})
	}
	for _, e := range v.Ranked {
		if e.Timed() {
			continue
		}
		if len(p.Untimed) == maxUntimed {
			p.UntimedMore++
			continue
		}
		p.Untimed = append(p.Untimed, rowOf(e))
	}
	after := r.URL.Query().Get("after")
	evs, err := rs.Store.IncidentEvidence(r.Context(), in.Slug, after, evidenceRows)
	if err != nil {
		return p, err
	}
	for _, e := range evs {
		var src Source
		if i, ok := j.byLink[evidenceLink(e)]; ok {
			src = j.sources[i]
		} else if src, err = rs.loadSource(r.Context(), e); err != nil {
			return p, err
		}
		row := rowOf(src.Evidence)
		row.Kind, row.ID = e.Kind, e.ID
		p.Evidence = append(p.Evidence, row)
	}
	if len(evs) == evidenceRows {
		p.Next = URL(in.Slug) + "?after=" + url.QueryEscape(store.EvidenceCursor(evs[len(evs)-1])) + "#evidence"
	}
	for i, a := range j.notes {
		p.Notes = append(p.Notes, noteRow{Number: i + 1, ID: a.ID, At: formatTime(a.At), Text: a.Text, By: a.Author})
	}
	return p, nil
}

// unitName names a series' unit for readers.
func unitName(unit string) string {
	if unit == "" {
		return "count"
	}
	return unit
}

// summaryOf is the incident's Markdown summary's input.
func summaryOf(r *http.Request, j *judged) incident.Summary {
	s := incident.Summary{Slug: j.in.Slug, Title: j.in.Title, TicketURL: j.in.TicketURL, State: j.in.State,
		BaseURL: page.BaseURL(r), TimelineImage: TimelineURL(j.in.Slug), Verdict: j.verdict, MoreEvidence: j.more,
		MoreAnnotations: j.moreNotes}
	for _, a := range j.notes {
		s.Annotations = append(s.Annotations, incident.Annotation{At: a.At, Text: a.Text, Author: a.Author})
	}
	return s
}

// markdown is GET /i/{slug}.md: the whole incident for its ticket.
func (rs Resource) markdown(w http.ResponseWriter, r *http.Request, j *judged) error {
	var buf bytes.Buffer
	if err := incident.WriteMarkdown(&buf, summaryOf(r, j)); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	_, err := w.Write(buf.Bytes())
	return err
}

// timelinePNG is GET /i/{slug}/timeline.png: the timeline drawn by pngchart at
// 1200×630 (?w= and ?h= ask another size within pngchart's bounds), cached by
// what it draws, with that as its ETag; a render charges the memory budget
// what it allocates first.
func (rs Resource) timelinePNG(w http.ResponseWriter, r *http.Request) error {
	width, err := sizeParam(r, "w", imageWidth, pngchart.MinWidth, pngchart.MaxWidth)
	if err != nil {
		return err
	}
	height, err := sizeParam(r, "h", imageHeight, pngchart.MinHeight, pngchart.MaxHeight)
	if err != nil {
		return err
	}
	j, err := rs.judge(r.Context(), page.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	t := j.timelineOf()
	key := t.key(width, height)
	etag := `"` + key + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	img, ok := rs.Images.Get(key)
	if !ok {
		chart := t.chart(width, height)
		cost := chart.Cost()
		if err := rs.Budget.Charge(cost); err != nil {
			return err
		}
		var buf bytes.Buffer
		err := pngchart.RenderTimeline(&buf, chart)
		rs.Budget.Uncharge(cost)
		if err != nil {
			return fmt.Errorf("timeline of %s: %w", j.in.Slug, err)
		}
		img = buf.Bytes()
		rs.Images.Add(key, img)
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	_, err = w.Write(img)
	return err
}

// sizeParam reads an image dimension from the query.
func sizeParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, serrors.Errorf(http.StatusBadRequest, "%s must be a number of pixels from %d to %d, not %q", name, lo, hi, page.Short(s, 20))
	}
	return n, nil
}

// annotationInput adds an annotation: at is RFC 3339 or the form's
// "2006-01-02T15:04[:05]" in UTC, "" for now.
type annotationInput struct {
	At     string `json:"at"`
	Text   string `json:"text"`
	Author string `json:"author"`
}

// parseAt reads an annotation's time.
func parseAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			if y := t.UTC().Year(); y < 1970 || y > 9999 {
				return time.Time{}, serrors.Errorf(http.StatusBadRequest, "an annotation's time must fall between the years 1970 and 9999, not %d", y)
			}
			return t, nil
		}
	}
	return time.Time{}, serrors.Errorf(http.StatusBadRequest, "the annotation's time %q is not a time such as 2026-12-02T10:32 (UTC) or RFC 3339", page.Short(s, 40))
}

// annotate is POST /i/{slug}/annotations and /api/incidents/{slug}/annotations.
func (rs Resource) annotate(w http.ResponseWriter, r *http.Request) error {
	slug := page.URLParam(r, "slug")
	var in annotationInput
	if err := readInput(w, r, &in); err != nil {
		return err
	}
	at, err := parseAt(in.At)
	if err != nil {
		return err
	}
	a := store.Annotation{At: at, Text: in.Text, Author: in.Author}
	if err := rs.Store.Annotate(r.Context(), slug, &a); err != nil {
		return err
	}
	return done(w, r, http.StatusCreated, URL(slug)+"#annotations", annotationJSONOf(a))
}

// deleteAnnotation is POST /i/{slug}/annotations/{id}/delete and DELETE
// /api/incidents/{slug}/annotations/{id}.
func (rs Resource) deleteAnnotation(w http.ResponseWriter, r *http.Request) error {
	slug, id := page.URLParam(r, "slug"), page.URLParam(r, "id")
	if err := rs.Store.DeleteAnnotation(r.Context(), slug, id); err != nil {
		return err
	}
	return done(w, r, http.StatusOK, URL(slug)+"#annotations", map[string]string{"deleted": id})
}

// stateInput resolves or reopens an incident.
type stateInput struct {
	State string `json:"state"`
}

// setState is POST /i/{slug}/state and /api/incidents/{slug}/state.
func (rs Resource) setState(w http.ResponseWriter, r *http.Request) error {
	slug := page.URLParam(r, "slug")
	var in stateInput
	if err := readInput(w, r, &in); err != nil {
		return err
	}
	if err := rs.Store.SetIncidentState(r.Context(), slug, in.State); err != nil {
		return err
	}
	inc, err := rs.Store.Incident(r.Context(), slug)
	if err != nil {
		return err
	}
	return done(w, r, http.StatusOK, URL(slug), incidentHeadJSON(r, inc))
}

// attachInput attaches a report or run: ref is its id or its link.
type attachInput struct {
	Ref string `json:"ref"`
}

// attach is POST /i/{slug}/evidence and /api/incidents/{slug}/evidence.
func (rs Resource) attach(w http.ResponseWriter, r *http.Request) error {
	slug := page.URLParam(r, "slug")
	var in attachInput
	if err := readInput(w, r, &in); err != nil {
		return err
	}
	kind, id, err := parseRef(in.Ref)
	if err != nil {
		return err
	}
	if kind == "" {
		// A bare id is a report's or a run's.
		kind = store.EvidenceReport
		err = rs.Store.Attach(r.Context(), slug, kind, id)
		if errors.Is(err, store.ErrNotFound) {
			if _, ierr := rs.Store.Incident(r.Context(), slug); ierr == nil {
				kind = store.EvidenceRun
				err = rs.Store.Attach(r.Context(), slug, kind, id)
			}
		}
	} else {
		err = rs.Store.Attach(r.Context(), slug, kind, id)
	}
	if err != nil {
		return err
	}
	return done(w, r, http.StatusOK, URL(slug)+"#evidence", map[string]string{"incident": slug, "kind": kind, "id": id})
}

// attachFrom is the report and run pages' form: slug names the incident.
func (rs Resource) attachFrom(w http.ResponseWriter, r *http.Request, kind, id string) error {
	var in struct {
		Slug string `json:"slug"`
	}
	if err := readInput(w, r, &in); err != nil {
		return err
	}
	slug := strings.ToLower(strings.TrimSpace(in.Slug))
	if err := rs.Store.Attach(r.Context(), slug, kind, id); err != nil {
		return err
	}
	return done(w, r, http.StatusOK, URL(slug)+"#evidence", map[string]string{"incident": slug, "kind": kind, "id": id})
}

// detachInput takes a report or run off an incident.
type detachInput struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// detach is POST /i/{slug}/evidence/detach and DELETE
// /api/incidents/{slug}/evidence/{kind}/{id}.
func (rs Resource) detach(w http.ResponseWriter, r *http.Request) error {
	slug := page.URLParam(r, "slug")
	in := detachInput{Kind: page.URLParam(r, "kind"), ID: page.URLParam(r, "id")}
	if in.ID == "" {
		if err := readInput(w, r, &in); err != nil {
			return err
		}
	}
	if err := rs.Store.Detach(r.Context(), slug, in.Kind, in.ID); err != nil {
		return err
	}
	return done(w, r, http.StatusOK, URL(slug)+"#evidence", map[string]string{"incident": slug, "kind": in.Kind, "detached": in.ID})
}

// parseRef reads what to attach: a report's or run's id, or a link to its
// page (/r/ID, /r/ID.md, /api/reports/ID, /runs/ID, /api/runs/ID, on any
// host). kind is "" for a bare id.
func parseRef(ref string) (kind, id string, err error) {
	ref = strings.TrimSpace(ref)
	if store.ValidID(ref) {
		return "", ref, nil
	}
	u, perr := url.Parse(ref)
	if perr == nil && (u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https") {
		parts := strings.Split(strings.Trim(path.Clean("/"+u.Path), "/"), "/")
		if len(parts) >= 2 && parts[0] == "api" {
			parts = parts[1:]
			if parts[0] == "reports" {
				parts[0] = "r"
			}
		}
		if len(parts) >= 2 {
			id := strings.TrimSuffix(strings.TrimSuffix(parts[1], ".md"), ".json")
			if store.ValidID(id) {
				switch parts[0] {
				case "r":
					return store.EvidenceReport, id, nil
				case "runs":
					return store.EvidenceRun, id, nil
				}
			}
		}
	}
	return "", "", serrors.Errorf(http.StatusBadRequest, "%q is neither a report's or run's id nor a link to one (/r/ID, /runs/ID)", page.Short(ref, 80))
}
