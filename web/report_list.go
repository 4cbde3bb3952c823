package web

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/runs"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// reportsPerPage is how many reports one page of the dashboard's list shows.
const reportsPerPage = 20

// maxSearch bounds the dashboard's search text.
const maxSearch = 200

// reportList is one page of the dashboard's list of reports, from ?q= (name,
// label, kind, verdict or SHA-256 prefix), ?source= (upload or run) and ?after=
// (the cursor of the page before). Each report is listed by its headline
// (store.Headline), never by decoding its summary.
func (s *Server) reportList(r *http.Request) (view.ReportList, error) {
	v := r.URL.Query()
	l := view.ReportList{Query: page.CleanText(v.Get("q"), maxSearch), Source: v.Get("source")}
	l.Searched = l.Query != "" || l.Source != ""
	switch l.Source {
	case "", "upload", "run":
	default:
		return l, serrors.Errorf(http.StatusBadRequest, "source must be upload, run or empty, not %q", l.Source)
	}
	after := v.Get("after")
	reps, err := s.store.SearchReports(r.Context(), store.ReportSearch{Text: l.Query, Source: l.Source, After: after, Limit: reportsPerPage + 1})
	if err != nil {
		return l, err
	}
	pg := func(cursor string) string {
		q := url.Values{}
		if l.Query != "" {
			q.Set("q", l.Query)
		}
		if l.Source != "" {
			q.Set("source", l.Source)
		}
		if cursor != "" {
			q.Set("after", cursor)
		}
		if len(q) == 0 {
			return "/#reports"
		}
		return "/?" + q.Encode() + "#reports"
	}
	if after != "" {
		l.First = pg("")
	}
	if len(reps) > reportsPerPage {
		reps = reps[:reportsPerPage]
		l.Next = pg(store.Cursor(reps[len(reps)-1]))
	}
	for _, rep := range reps {
		h := rep.Headline
		item := view.ReportListItem{URL: page.ReportURL(rep.ID), Title: rep.ID, Kind: rep.Kind, Created: page.FormatTime(rep.CreatedAt),
			Summary: h.Line, Run: rep.RunID != "", Verdict: h.Verdict, Size: analyze.FormatBytes(h.InputBytes)}
		if h.Title != "" {
			item.Title = h.Title
		}
		if len(rep.Artifacts) > 0 && rep.RunID == "" {
			item.Label = rep.Artifacts[0].Label
		}
		item.VerdictClass = verdictClass(item.Verdict)
		l.Items = append(l.Items, item)
	}
	return l, nil
}

// headline is the store's Headliner: a report's verdict, its line for the
// dashboard and, for a run's report, its title, from its kind's summary line.
// It decodes the summary once, when the report or its summary is stored (or
// for a report stored before headlines were, once when the server starts),
// so that a list of reports never does.
func (s *Server) headline(r *store.Report) store.Headline {
	h := store.Headline{Verdict: reportVerdict(r.Summary), Line: s.summaryLine(r.Kind, r.Summary)}
	h.Title, h.Terms = s.kinds.Listing(r.Kind, r.Summary)
	if r.RunID != "" {
		h.Title = runTitle(r.Summary)
	}
	return h
}

// runTitle is the title a run's report summary keeps ("checkpoint leaky/active,
// …"), "" when it has none.
func runTitle(summary []byte) string {
	var sum runs.Summary
	page.Unmarshal(summary, &sum)
	return sum.Title
}

// verdictClass colours a verdict badge as every page does: a leak red, a
// healthy or shrinking verdict green, anything else (inconclusive, no
// verdict) grey.
func verdictClass(verdict string) string {
	switch verdict {
	case "leak":
		return "bad"
	case "no leak", "no-leak", "steady", "shrinking":
		return "good"
	}
	return ""
}

// reportLabel is the label an upload's files were given ("INC-1234 checkout
// OOM"), "" for none; a lab run's inputs carry their roles instead, not a label.
func reportLabel(rep *store.Report) string {
	if rep.RunID != "" {
		return ""
	}
	for _, a := range rep.Artifacts {
		if a.Label != "" {
			return a.Label
		}
	}
	return ""
}

// withLabelLine puts a report's label under the Markdown summary's heading, so a
// ticket pasted from it names the incident.
func withLabelLine(md []byte, rep *store.Report) []byte {
	label := reportLabel(rep)
	if label == "" {
		return md
	}
	line := []byte("Label: **" + markdown.Escape(label) + "**\n\n")
	if i := bytes.Index(md, []byte("\n\n")); bytes.HasPrefix(md, []byte("#")) && i >= 0 {
		return slices.Concat(md[:i+2], line, md[i+2:])
	}
	return slices.Concat(line, md)
}
