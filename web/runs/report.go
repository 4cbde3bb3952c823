package runs

import (
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// ReportKind is the report a lab run makes when it ends.
const ReportKind = "run"

func verdictWord(verdict, status string) string {
	switch verdict {
	case lab.VerdictLeak:
		return "leak"
	case lab.VerdictNoLeak:
		return "no leak"
	}
	return status
}

// runOfReport finds the run a report was made from.
func (s *Kind) runOfReport(rep *store.Report) (string, error) {
	if rep.RunID == "" {
		return "", fmt.Errorf("report %s has no run", rep.ID)
	}
	return rep.RunID, nil
}

// showRunReport renders /r/{id} for a run: the same page as /runs/{run}.
func (s *Kind) showRunReport(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	id, err := s.runOfReport(rep)
	if err != nil {
		return err
	}
	pg, err := s.runPage(r, id)
	if err != nil {
		return err
	}
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "runs", Description: chart.BannerDescription(pg.Banner)}, view.RunView(pg))
}

// runReportJSON fills the JSON twin of a run's report.
func (s *Kind) runReportJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	id, err := s.runOfReport(rep)
	if err != nil {
		return err
	}
	run, p, err := s.runState(r, id)
	if err != nil {
		return err
	}
	out := map[string]any{"run_id": run.ID, "run_url": page.RunURL(run.ID), "status": p.Status, "verdict": p.Verdict,
		"reason": p.Reason, "details": p.Details, "counters": p.Counters, "points": p.Points, "snapshots": p.Snapshots}
	arts, err := s.d.Store.RunArtifacts(r.Context(), id)
	if err != nil {
		return err
	}
	for _, role := range []string{"heap", "goroutine"} {
		rep, err := s.runSeries(r.Context(), arts, role)
		if err != nil {
			return err
		}
		if rep != nil {
			out[role+"_series"] = rep
		}
		first, last, ok := firstLast(arts, role)
		if !ok {
			continue
		}
		d, err := s.runDiff(r.Context(), first, last)
		if err != nil {
			return err
		}
		if len(d.Rows) > 20 {
			d.Rows = d.Rows[:20]
		}
		out[role+"_diff"] = d
	}
	if j, ok, err := s.runProvenLeak(r.Context(), arts); err != nil {
		return err
	} else if ok {
		out["proven_leaked"] = j
	}
	if j, err := s.runJVMOf(r.Context(), run.ID, run.ReportID); err != nil {
		return err
	} else if j != nil {
		out["jvm"] = j.json()
	}
	doc.Analysis = out
	return nil
}

// runReportMarkdown is the ticket summary of a run.
func (s *Kind) runReportMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	id, err := s.runOfReport(rep)
	if err != nil {
		return err
	}
	pg, err := s.runPage(r, id)
	if err != nil {
		return err
	}
	fmt.Fprint(w, markdown.Heading(3, "leakui run: "+markdown.Escape(pg.Title)))
	fmt.Fprintf(w, "- Run: %s (report %s)\n", page.Absolute(r, page.RunURL(id)), page.Absolute(r, page.ReportURL(rep.ID)))
	fmt.Fprintf(w, "- Status: %s; verdict: **%s**\n", markdown.Escape(pg.Status), markdown.Escape(verdictWord(pg.Verdict, pg.Status)))
	if pg.Reason != "" {
		fmt.Fprintf(w, "- %s\n", markdown.Escape(pg.Reason))
	}
	if pg.Banner != nil {
		for _, n := range pg.Banner.Notes {
			fmt.Fprintf(w, "- %s\n", markdown.Escape(n))
		}
	}
	// The figures the page folds below the verdict, one level down.
	for _, d := range pg.Details {
		fmt.Fprintf(w, "  - %s\n", markdown.Escape(d))
	}
	if pg.Callout != "" {
		fmt.Fprintf(w, "  - %s\n", markdown.Escape(pg.Callout))
	}
	for _, c := range pg.Counters {
		fmt.Fprintf(w, "- %s: %s\n", markdown.Escape(c.Label), markdown.Escape(c.Value))
	}
	if j, err := s.runJVMOf(r.Context(), id, rep.ID); err != nil {
		return err
	} else if j != nil {
		j.markdown(w, r)
	}
	if len(pg.Charts) > 0 {
		fmt.Fprintln(w)
		for _, c := range pg.Charts {
			fmt.Fprintf(w, "![%s](%s)\n", markdown.Escape(c.Title), page.Absolute(r, page.RunChartImageURL(id, c.ID)))
		}
	}
	if rep := pg.Report; rep != nil {
		for _, sv := range []*view.SeriesView{rep.GoroutineSeries, rep.HeapSeries} {
			if sv == nil {
				continue
			}
			fmt.Fprintf(w, "- %s snapshots: **%s** — %s\n", markdown.Escape(sv.SampleType), markdown.Escape(sv.VerdictText), markdown.Escape(sv.Reason))
		}
		for _, sec := range rep.Sections {
			fmt.Fprintf(w, "- %s:\n", markdown.Escape(sec.Title))
			for _, line := range sec.Lines {
				fmt.Fprintf(w, "  - %s\n", markdown.Escape(line))
			}
		}
		for _, d := range []*view.DiffTable{rep.HeapDiff, rep.GoroutineDiff} {
			if d == nil || len(d.Rows) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s, first → last snapshot: %s → %s (%s)\n\n%s", markdown.Escape(d.SampleType), markdown.Escape(d.Base), markdown.Escape(d.Target), markdown.Escape(d.Change),
				markdown.TableHead(markdown.Right("change"), markdown.Left("function")))
			for i, row := range d.Rows {
				if i == 5 {
					break
				}
				fmt.Fprint(w, markdown.Row(markdown.Escape(row.Flat), markdown.Code(row.Name)))
			}
		}
	}
	return nil
}
