package logs

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// logJSON is a log report's analysis in its JSON twin: the parameters counted
// (the report's own unless the URL says otherwise) and the engine's report,
// whose shape is the `leakui count -json` contract.
type logJSON struct {
	Params Params `json:"params"`
	// Own is true when Params are the report's own.
	Own bool `json:"own"`
	// URL is the page of these parameters; CSVURL the keys never closed.
	URL    string       `json:"url"`
	CSVURL string       `json:"csv_url,omitempty"`
	Report *logs.Report `json:"report"`
	// Level is the level the URL filters to: report.overview's templates and
	// trouble then list that level's templates only (levels and buckets stay
	// whole).
	Level string `json:"level,omitempty"`
	// Notices say what the report leaves out (counts over time of files that
	// mix yearless and dated timestamps).
	Notices []string `json:"notices,omitempty"`
}

// logQueryOf reads a log report's query, or fails with 400.
func logQueryOf(r *http.Request, rep *store.Report) (logQuery, error) {
	def, err := logDefaultParams(rep)
	if err != nil {
		return logQuery{}, err
	}
	return parseLogQuery(r.URL.Query(), def)
}

// logJSONOf fills the JSON twin of a log report, honouring the page's query
// parameters.
func (k *Kind) logJSONOf(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	q, lr, err := k.logReportOf(r, rep)
	if err != nil {
		return err
	}
	path := page.ReportURL(rep.ID)
	out := logJSON{Params: q.params, Own: q.own, URL: q.countURL(path), Report: lr}
	if lr.YearlessUntimed {
		out.Notices = append(out.Notices, logYearlessNotice)
	}
	if !logTimesUsable(lr) {
		// A copy without the buckets: the cached report is never modified.
		cp := *lr
		cp.Buckets, cp.BucketWidth, cp.BucketMillis, cp.BucketWidened = []logs.Bucket{}, "", 0, false
		out.Report, out.Notices = &cp, append(out.Notices, logTimesNotice)
	}
	if logHasKeys(lr) {
		out.CSVURL = q.countURL(path + "/keys.csv")
	}
	if q.level() >= 0 && out.Report.Overview != nil {
		out.Report, out.Level = logOfLevel(out.Report, q.level()), logs.LevelNames[q.level()]
	}
	doc.Analysis = out
	return nil
}

// logMarkdown writes a log report's evidence for a ticket: the link, the
// files, then the counts the way a ticket quotes grep.
func (k *Kind) logMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	q, lr, err := k.logReportOf(r, rep)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### leakui: log counts\n\n")
	fmt.Fprintf(w, "- Report: %s\n", page.Absolute(r, q.countURL(page.ReportURL(rep.ID))))
	for _, a := range rep.Artifacts {
		fmt.Fprintf(w, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	}
	if lr.Preset != "" {
		title := lr.Preset
		if p, ok := logs.LookupPreset(lr.Preset); ok {
			title = p.Title
		}
		fmt.Fprintf(w, "- Preset: %s\n", markdown.Escape(title))
	}
	if q.level() >= 0 && lr.Overview != nil {
		fmt.Fprintf(w, "- Level: %s (the templates below are of %s lines only)\n", logs.LevelNames[q.level()], logs.LevelNames[q.level()])
		lr = logOfLevel(lr, q.level())
	}
	fmt.Fprintln(w)
	if _, err = io.WriteString(w, logReportMarkdown(lr)); err != nil {
		return err
	}
	if logTimesUsable(lr) && logNoMatch(lr) == "" {
		for _, c := range logOpenLineCharts(lr) {
			fmt.Fprintf(w, "\n![%s](%s)\n", markdown.Escape(c.chart.Title), page.Absolute(r, q.countURL(page.ReportChartImageURL(rep.ID, c.id, ""))))
		}
	}
	return nil
}

// handleLogKeysCSV is GET /r/{id}/keys.csv: the keys never closed of every
// keyed pair, with the page's parameters, as a CSV attachment. Cells that a
// spreadsheet would read as a formula are defused by the engine.
func (k *Kind) handleLogKeysCSV(w http.ResponseWriter, r *http.Request) error {
	id := page.URLParam(r, "id")
	rep, err := k.d.Store.Report(r.Context(), id)
	if err != nil {
		return err
	}
	if rep.Kind != kindLog {
		return serrors.Errorf(http.StatusNotFound, "report %s is not a log report: it has no keys to download", id)
	}
	_, lr, err := k.logReportOf(r, rep)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := lr.WriteUnclosedCSV(&buf); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="leakui-`+rep.ID+`-open-keys.csv"`)
	_, err = w.Write(buf.Bytes())
	return err
}

// logOfLevel is a copy of a report whose overview lists the templates of
// one level only (its levels and buckets stay whole): the cached report is
// never modified.
func logOfLevel(lr *logs.Report, level int) *logs.Report {
	cp, ov := *lr, *lr.Overview
	ov.Templates, ov.Trouble = logFilterLevel(ov.Templates, level), logFilterLevel(ov.Trouble, level)
	cp.Overview = &ov
	return &cp
}

// logFilterLevel keeps the templates of one level, in their order.
func logFilterLevel(in []logs.Template, level int) []logs.Template {
	out := []logs.Template{}
	for _, t := range in {
		if t.Level == logs.LevelNames[level] {
			out = append(out, t)
		}
	}
	return out
}
