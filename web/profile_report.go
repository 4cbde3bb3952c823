package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/view"
)

// defaultTopRows is how many rows the top table shows before "show all".
const defaultTopRows = 50

// profileQuery is a profile view's parameters from the URL.
type profileQuery struct {
	sampleIndex int
	rows        int // 0 means all
}

// parseProfileQuery reads ?si= and ?n= for a profile.
func parseProfileQuery(r *http.Request, p *analyze.Profile) (profileQuery, error) {
	q := profileQuery{rows: defaultTopRows}
	si, err := p.SampleIndex(r.URL.Query().Get("si"))
	if err != nil {
		return q, err
	}
	q.sampleIndex = si
	switch n := r.URL.Query().Get("n"); n {
	case "":
	case "all":
		q.rows = 0
	default:
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return q, errorf(http.StatusBadRequest, "n must be a positive number of rows or \"all\", not %q", n)
		}
		q.rows = v
	}
	return q, nil
}

// reportProfile loads the first artifact of a profile report.
func (s *Server) reportProfile(r *http.Request, rep *store.Report) (*analyze.Profile, store.ReportArtifact, error) {
	if len(rep.Artifacts) == 0 {
		return nil, store.ReportArtifact{}, fmt.Errorf("report %s has no artifacts", rep.ID)
	}
	a := rep.Artifacts[0]
	p, err := s.loadProfile(r.Context(), a.SHA256)
	return p, a, err
}

// showProfile renders /r/{id} for a profile.
func (s *Server) showProfile(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	p, a, err := s.reportProfile(r, rep)
	if err != nil {
		return err
	}
	q, err := parseProfileQuery(r, p)
	if err != nil {
		return err
	}
	top := p.Top(q.sampleIndex)
	types := p.SampleTypes()
	page := view.ProfileReport{
		ID: rep.ID, FileName: a.Name, Label: a.Label, Kind: analyze.KindProfile.Description() + " (" + p.Format + ")",
		SHA256: a.SHA256, Size: analyze.FormatBytes(a.Size), Samples: analyze.FormatCount(int64(p.Samples())),
		Binary: p.MainBinary(), Created: formatTime(rep.CreatedAt), Permalink: "/r/" + rep.ID,
		Links: []view.Link{
			{Label: "JSON", URL: "/api/reports/" + rep.ID + keepQuery(r, "si", "n")},
			{Label: "Markdown", URL: "/r/" + rep.ID + ".md" + keepQuery(r, "si")},
			{Label: "download", URL: "/a/" + a.SHA256},
		},
		Top: topTable(top, q.rows, showAllURL(r)),
	}
	if t := p.Time(); !t.IsZero() {
		page.Time = formatTime(t)
	}
	if d := p.Duration(); d > 0 {
		page.Duration = d.Round(time.Millisecond).String()
	}
	for i, st := range types {
		key := ""
		if i < 9 {
			key = strconv.Itoa(i + 1)
		}
		page.Types = append(page.Types, view.Link{Label: st.Type, URL: "/r/" + rep.ID + "?si=" + url.QueryEscape(st.Type), Current: i == q.sampleIndex, Key: key,
			Value: analyze.FormatValue(st.Total, st.Unit)})
	}
	return s.render(w, r, http.StatusOK, view.Page{Title: a.Name, Nav: "reports"}, view.ProfileReportPage(page))
}

// topTable formats the first rows of a top table (all when rows is 0).
func topTable(top analyze.TopResult, rows int, showAll string) view.TopTable {
	t := view.TopTable{SampleType: top.SampleType, Total: analyze.FormatValue(top.Total, top.Unit), All: len(top.Rows)}
	shown := top.Rows
	if rows > 0 && len(shown) > rows {
		shown = shown[:rows]
		t.ShowAll = showAll
	}
	t.Shown = len(shown)
	var sum, maxFlat int64
	for _, row := range shown {
		maxFlat = max(maxFlat, abs(row.Flat))
	}
	for i, row := range shown {
		sum += row.Flat
		bar := 0
		if maxFlat > 0 {
			bar = int(abs(row.Flat) * 100 / maxFlat)
		}
		t.Rows = append(t.Rows, view.TopRow{
			Rank: i + 1, Name: row.Name,
			Flat: analyze.FormatValue(row.Flat, top.Unit), FlatPct: analyze.Percent(row.Flat, top.Total),
			SumPct: analyze.Percent(sum, top.Total),
			Cum:    analyze.FormatValue(row.Cum, top.Unit), CumPct: analyze.Percent(row.Cum, top.Total),
			FlatValue: row.Flat, CumValue: row.Cum, BarPct: bar,
		})
	}
	return t
}

// profileJSON computes the JSON twin of a profile report.
func (s *Server) profileJSON(r *http.Request, rep *store.Report) (*profileJSON, error) {
	p, _, err := s.reportProfile(r, rep)
	if err != nil {
		return nil, err
	}
	q, err := parseProfileQuery(r, p)
	if err != nil {
		return nil, err
	}
	top := p.Top(q.sampleIndex)
	if q.rows > 0 && len(top.Rows) > q.rows {
		top.Rows = top.Rows[:q.rows]
	}
	doc := &profileJSON{Format: p.Format, DurationNs: int64(p.Duration()), Samples: p.Samples(), SampleTypes: p.SampleTypes(), Top: top}
	if t := p.Time(); !t.IsZero() {
		doc.Time = &t
	}
	return doc, nil
}

// profileMarkdown writes the ticket summary of a profile report: link, sha256,
// totals and the top 10 rows of the chosen sample type.
func (s *Server) profileMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	p, a, err := s.reportProfile(r, rep)
	if err != nil {
		return err
	}
	q, err := parseProfileQuery(r, p)
	if err != nil {
		return err
	}
	top := p.Top(q.sampleIndex)
	fmt.Fprintf(w, "### leakui: %s\n\n", mdEscape(a.Name))
	fmt.Fprintf(w, "- Report: %s\n", absoluteURL(r, "/r/"+rep.ID))
	fmt.Fprintf(w, "- File: `%s`, %s, sha256 `%s`\n", mdCode(a.Name), analyze.FormatBytes(a.Size), a.SHA256)
	fmt.Fprintf(w, "- Kind: pprof profile (%s), %s samples", p.Format, analyze.FormatCount(int64(p.Samples())))
	if t := p.Time(); !t.IsZero() {
		fmt.Fprintf(w, ", taken %s", formatTime(t))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "- Totals:")
	for i, st := range p.SampleTypes() {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %s", sep, st.Type, analyze.FormatValue(st.Total, st.Unit))
	}
	fmt.Fprintf(w, "\n\nTop 10 by %s (total %s):\n\n", top.SampleType, analyze.FormatValue(top.Total, top.Unit))
	fmt.Fprintln(w, "| flat | flat% | cum | cum% | function |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---|")
	for i, row := range top.Rows {
		if i == 10 {
			break
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | `%s` |\n", analyze.FormatValue(row.Flat, top.Unit), analyze.Percent(row.Flat, top.Total),
			analyze.FormatValue(row.Cum, top.Unit), analyze.Percent(row.Cum, top.Total), mdCode(row.Name))
	}
	fmt.Fprintf(w, "\nOpen it with `go tool pprof %s`.\n", absoluteURL(r, "/a/"+a.SHA256))
	return nil
}

// showAllURL is the current URL with n=all.
func showAllURL(r *http.Request) string {
	q := r.URL.Query()
	q.Set("n", "all")
	return r.URL.Path + "?" + q.Encode()
}

// keepQuery carries the named query parameters over to another URL.
func keepQuery(r *http.Request, names ...string) string {
	out := url.Values{}
	for _, n := range names {
		if v := r.URL.Query().Get(n); v != "" {
			out.Set(n, v)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "?" + out.Encode()
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 MST") }

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
