package jvm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/classhist"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// jvmHistogramSummary is stored with a histogram report for the dashboard's list.
type jvmHistogramSummary struct {
	Histograms     int    `json:"histograms"`
	Classes        int    `json:"classes"`
	TotalInstances int64  `json:"total_instances"`
	TotalBytes     int64  `json:"total_bytes"`
	Largest        string `json:"largest,omitempty"`
	LargestBytes   int64  `json:"largest_bytes,omitempty"`
	// The diff's numbers, first → last.
	BytesDelta       int64  `json:"bytes_delta,omitempty"`
	InstancesDelta   int64  `json:"instances_delta,omitempty"`
	TopGrowth        string `json:"top_growth,omitempty"`
	TopGrowthBytes   int64  `json:"top_growth_bytes,omitempty"`
	Suspect          string `json:"suspect,omitempty"`
	SuspectInstances int64  `json:"suspect_instances,omitempty"`
	// SeriesVerdict is the series analysis's verdict for three or more
	// histograms: "leak" when the series by instances or by bytes says so.
	SeriesVerdict string `json:"series_verdict,omitempty"`
}

// planJVMHistograms makes a histogram report of one histogram and a diff of two or
// more (every histogram of every file counts, oldest first).
func (s *Histograms) planJVMHistograms(form *kind.Upload) (*kind.Plan, error) {
	hs, params, err := snapshot.Plan(s.jvm, form, classhist.Prefix, "histogram time", jvm.ParseHistogramsWithin,
		func(h *jvm.Histogram) time.Time { return h.Time })
	if err != nil {
		return nil, err
	}
	return HistogramPlanOf(hs, params, func(i int) string {
		ref := params.Snapshots[i]
		return fmt.Sprintf("%s #%d", form.Files[ref.File].Name, ref.Index+1)
	})
}

// HistogramPlanOf is the report of histograms in analysis order: the kind (one
// histogram or a diff, first → last) and the dashboard's numbers; nameOf names
// histogram i for the series of three or more.
func HistogramPlanOf(hs []*jvm.Histogram, params snapshot.Params, nameOf func(i int) string) (*kind.Plan, error) {
	last := hs[len(hs)-1]
	sum := jvmHistogramSummary{Histograms: len(hs), Classes: len(last.Classes), TotalInstances: last.TotalInstances, TotalBytes: last.TotalBytes}
	if top := last.Ranked(jvm.ByBytes); len(top) > 0 {
		sum.Largest, sum.LargestBytes = top[0].Name, top[0].Bytes
	}
	if len(hs) == 1 {
		return &kind.Plan{Kind: kindJVMHistogram, Params: params.AsMap(), Summary: sum}, nil
	}
	d := jvm.DiffHistograms(hs[0], last)
	sum.BytesDelta, sum.InstancesDelta = d.TotalBytes, d.TotalInstances
	if g := d.Grown(jvm.ByBytes, 1); len(g) > 0 {
		sum.TopGrowth, sum.TopGrowthBytes = g[0].Name, g[0].Bytes
	}
	if sus := d.Suspects(1); len(sus) > 0 {
		sum.Suspect, sum.SuspectInstances = sus[0].Name, sus[0].Instances
	}
	if len(hs) >= 3 {
		names := make([]string, len(hs))
		for i := range hs {
			names[i] = nameOf(i)
		}
		for _, o := range classhist.SeriesOrders {
			s, err := classhist.SeriesOf(hs, names, o)
			if err != nil {
				return nil, err
			}
			if sum.SeriesVerdict == "" || s.Verdict == series.Leak {
				sum.SeriesVerdict = string(s.Verdict)
			}
		}
	}
	return &kind.Plan{Kind: kindJVMHistogramDiff, Params: params.AsMap(), Summary: sum}, nil
}

// jvmHistogramSummaryLine is the dashboard's line for a histogram report.
func jvmHistogramSummaryLine(raw json.RawMessage) string {
	var s jvmHistogramSummary
	if json.Unmarshal(raw, &s) != nil || s.Histograms == 0 {
		return ""
	}
	if s.Histograms == 1 {
		line := fmt.Sprintf("%s classes, %s", analyze.FormatCount(int64(s.Classes)), analyze.FormatBytes(s.TotalBytes))
		if s.Largest != "" {
			line += fmt.Sprintf("; largest %s (%s)", page.CleanText(s.Largest, 80), analyze.FormatBytes(s.LargestBytes))
		}
		return line
	}
	line := fmt.Sprintf("%d histograms, objects %s", s.Histograms, analyze.FormatSignedValue(s.BytesDelta, "bytes"))
	if s.Suspect != "" {
		line += fmt.Sprintf("; suspect %s %s instances", page.CleanText(s.Suspect, 80), analyze.FormatSignedValue(s.SuspectInstances, "count"))
	} else if s.TopGrowth != "" {
		line += fmt.Sprintf("; grew most %s %s", page.CleanText(s.TopGrowth, 80), analyze.FormatSignedValue(s.TopGrowthBytes, "bytes"))
	}
	if s.SeriesVerdict != "" {
		line += "; series: " + series.Verdict(s.SeriesVerdict).Text()
	}
	return line
}

func (s *Histograms) loadHistogramSet(r *http.Request, rep *store.Report) (*classhist.Histograms, error) {
	ss, err := snapshot.LoadSet(s.jvm, r, rep, classhist.Prefix, jvm.ParseHistogramsWithin)
	if err != nil {
		return nil, err
	}
	return &classhist.Histograms{Set: ss, Cache: s.jvm.Cache()}, nil
}

// showJVMHistograms renders /r/{id} for histogram reports.
func (s *Histograms) showJVMHistograms(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	if i, ok := hs.Single(); ok {
		pg := hs.Page(i)
		return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.JVMHistogramPageView(pg))
	}
	pg := hs.DiffPage()
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.JVMHistogramDiffPageView(pg))
}

// jvmHistogramsJSON fills doc.Analysis for histogram reports.
func (s *Histograms) jvmHistogramsJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	doc.Analysis, err = hs.AnalysisJSON()
	return err
}

// jvmHistogramsMarkdown writes the ticket summary: the Markdown of the
// histogram or the diff, ten rows per table unless n says otherwise.
func (s *Histograms) jvmHistogramsMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	hs, err := s.loadHistogramSet(r, rep)
	if err != nil {
		return err
	}
	return hs.Markdown(w, r, classhist.Markdown, func(w io.Writer, rows int) error {
		if _, err := io.WriteString(w, classhist.DiffMarkdown(hs.Diff(), rows)); err != nil {
			return err
		}
		return hs.SeriesMarkdown(w, rows)
	})
}
