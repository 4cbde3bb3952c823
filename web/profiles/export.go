package profiles

import (
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
)

// profilesJSON fills the JSON twin of a report over profiles, for the view the
// query selects (top or flame, single or diff).
func (s *Kind) profilesJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	ps, err := s.loadProfileSet(r, rep)
	if err != nil {
		return err
	}
	defer ps.release()
	q := ps.q
	if pv, ok, err := ps.extraView(); ok || err != nil { // registered in profileViews
		if err != nil {
			return err
		}
		return pv.json(s, r.Context(), ps, doc)
	}
	switch q.mode {
	case modeSeries:
		rep, err := ps.profileSeries(&doc.Notices)
		if err != nil {
			return err
		}
		doc.Analysis = rep
		return nil
	case modeDiff:
		if q.view == viewFlame {
			cut, err := s.diffFlameCut(r.Context(), ps, &doc.Notices)
			if err != nil {
				return err
			}
			fg := cut.Graph()
			doc.Flame = &fg
			return nil
		}
		base, target, err := ps.filteredPair(&doc.Notices)
		if err != nil {
			return err
		}
		d, err := pprof.Diff(base, target, ps.si)
		if err != nil {
			return err
		}
		if q.pprofTrim { // the rows `go tool pprof -top -diff_base` shows
			d = d.Trimmed(pprof.DefaultNodeFraction)
		}
		if q.rows > 0 && len(d.Rows) > q.rows {
			d.Rows = d.Rows[:q.rows]
		}
		doc.Diff = &kind.DiffJSON{Base: rep.Artifacts[q.base].SHA256, Target: rep.Artifacts[q.target].SHA256, Result: d}
		return nil
	}
	p := ps.shown()
	fp, err := ps.filtered(p, &doc.Notices)
	if err != nil {
		return err
	}
	pj := &kind.ProfileJSON{Format: p.Format, DurationNs: int64(p.Duration()), Samples: p.Samples(), SampleTypes: p.SampleTypes()}
	if pj.Headline, err = fp.Headline(ps.si); err != nil {
		return err
	}
	if t := p.Time(); !t.IsZero() {
		pj.Time = &t
	}
	if q.view == viewFlame {
		cut, err := s.flameCut(r.Context(), ps, q.file, nil) // filtered has given the notices
		if err != nil {
			return err
		}
		fg := cut.Graph()
		doc.Flame = &fg
	} else {
		top, err := fp.Top(ps.si)
		if err != nil {
			return err
		}
		if q.pprofTrim { // the rows `go tool pprof -top` shows
			top = top.Trimmed(pprof.DefaultNodeFraction)
		}
		if q.rows > 0 && len(top.Rows) > q.rows {
			top.Rows = top.Rows[:q.rows]
		}
		pj.Top = top
	}
	if p.IsGoroutineLeakProfile() {
		top, err := fp.Top(ps.si)
		if err != nil {
			return err
		}
		pj.ProvenLeaked, pj.Leaked = top.ProvenLeaked, top.Leaked
	}
	doc.Profile = pj
	return nil
}

// profilesMarkdown writes the ticket summary of a report over profiles.
func (s *Kind) profilesMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	ps, err := s.loadProfileSet(r, rep)
	if err != nil {
		return err
	}
	defer ps.release()
	q := ps.q
	link := page.Absolute(r, ps.q.url(page.ReportURL(rep.ID), nil))
	var notices []string
	if q.mode == modeSeries {
		rep, err := ps.profileSeries(&notices)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "### leakui series: %d profiles\n\n- Report: %s\n", len(ps.profiles), link)
		writeSeriesMarkdown(w, rep)
		writeNotices(w, notices)
		fmt.Fprintf(w, "\n![Total %s](%s)\n", markdown.Escape(rep.SampleType), page.Absolute(r, q.url(page.ReportChartImageURL(ps.rep.ID, "totals", ""), nil)))
		return nil
	}
	if q.mode == modeDiff {
		base, target := rep.Artifacts[q.base], rep.Artifacts[q.target]
		fb, ft, err := ps.filteredPair(&notices)
		if err != nil {
			return err
		}
		d, err := pprof.Diff(fb, ft, ps.si)
		if err != nil {
			return err
		}
		fmt.Fprint(w, markdown.Heading(3, "leakui diff: "+markdown.Escape(base.Name)+" → "+markdown.Escape(target.Name)))
		fmt.Fprintf(w, "- Report: %s\n", link)
		fmt.Fprintf(w, "- Base: %s sha256 %s\n- Target: %s sha256 %s\n", markdown.Code(base.Name), markdown.Code(base.SHA256), markdown.Code(target.Name), markdown.Code(target.SHA256))
		fmt.Fprintf(w, "- %s: %s → %s (%s, %s of the base)\n", markdown.Escape(d.SampleType), analyze.FormatValue(d.BaseTotal, d.Unit),
			analyze.FormatValue(d.TargetTotal, d.Unit), analyze.FormatSignedValue(d.Change(), d.Unit), analyze.SignedPercent(d.Change(), d.BaseTotal))
		writeNotices(w, notices)
		fmt.Fprintf(w, "\nTop 10 changes by %s:\n\n", markdown.Escape(d.SampleType))
		fmt.Fprint(w, markdown.TableHead(markdown.Right("flat change"), markdown.Right("base"), markdown.Right("target"), markdown.Right("cum change"), markdown.Left("function")))
		for i, row := range d.Rows {
			if i == 10 {
				break
			}
			fmt.Fprint(w, markdown.Row(analyze.FormatSignedValue(row.Flat, d.Unit), analyze.FormatValue(row.BaseFlat, d.Unit),
				analyze.FormatValue(row.TargetFlat, d.Unit), analyze.FormatSignedValue(row.Cum, d.Unit), markdown.Code(row.Name)))
		}
		fmt.Fprintf(w, "\n![Diff flame graph of %s](%s)\n", markdown.Escape(d.SampleType), page.Absolute(r, reportFlameImageURL(ps)))
		return nil
	}
	a := rep.Artifacts[q.file]
	p := ps.profiles[q.file]
	fp, err := ps.filtered(p, &notices)
	if err != nil {
		return err
	}
	top, err := fp.Top(ps.si)
	if err != nil {
		return err
	}
	fmt.Fprint(w, markdown.Heading(3, "leakui: "+markdown.Escape(a.Name)))
	fmt.Fprintf(w, "- Report: %s\n", link)
	fmt.Fprintf(w, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	headline, err := fp.Headline(ps.si)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "- Kind: pprof profile (%s), %s", markdown.Escape(p.Format), analyze.Plural(int64(p.Samples()), "sample"))
	if t := p.Time(); !t.IsZero() {
		fmt.Fprintf(w, ", taken %s", page.FormatTime(t))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "- Totals:")
	for i, st := range p.SampleTypes() {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %s", sep, markdown.Escape(st.Type), analyze.FormatValue(st.Total, st.Unit))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- Verdict: %s\n", markdown.Escape(headline))
	writeNotices(w, notices)
	fmt.Fprintf(w, "\nTop 10 by %s (total %s):\n\n", markdown.Escape(top.SampleType), analyze.FormatValue(top.Total, top.Unit))
	fmt.Fprint(w, markdown.TableHead(markdown.Right("flat"), markdown.Right("flat%"), markdown.Right("cum"), markdown.Right("cum%"), markdown.Left("function")))
	for i, row := range top.Rows {
		if i == 10 {
			break
		}
		fmt.Fprint(w, markdown.Row(analyze.FormatValue(row.Flat, top.Unit), analyze.Percent(row.Flat, top.Total),
			analyze.FormatValue(row.Cum, top.Unit), analyze.Percent(row.Cum, top.Total), markdown.Code(row.Name)))
	}
	fmt.Fprintf(w, "\n![Flame graph of %s](%s)\n", markdown.Escape(top.SampleType), page.Absolute(r, reportFlameImageURL(ps)))
	fmt.Fprintf(w, "\nOpen it with %s.\n", markdown.Code("go tool pprof "+page.Absolute(r, page.ArtifactURL(a.SHA256))))
	return nil
}

func writeNotices(w io.Writer, notices []string) {
	for _, n := range notices {
		fmt.Fprintf(w, "- Note: %s\n", markdown.Escape(n))
	}
}

// compare is POST /r/{id}/compare with base=REPORT_ID: a new diff report of the
// base report's profile → this report's profile; 303 to it.
func (s *Kind) compare(w http.ResponseWriter, r *http.Request) error {
	target, err := s.d.Store.Report(r.Context(), page.URLParam(r, "id"))
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return serrors.Errorf(http.StatusBadRequest, "bad form: %v", err)
	}
	base, err := s.d.Store.Report(r.Context(), r.PostForm.Get("base"))
	if err != nil {
		return err
	}
	if target.Kind != modeSingle || base.Kind != modeSingle {
		return serrors.Errorf(http.StatusUnprocessableEntity, "only single-profile reports can be compared")
	}
	bp, err := s.loadProfile(r.Context(), base.Artifacts[0].SHA256)
	if err != nil {
		return err
	}
	tp, err := s.loadProfile(r.Context(), target.Artifacts[0].SHA256)
	if err != nil {
		return err
	}
	if _, err := pprof.Diff(bp, tp, tp.DefaultSampleIndex()); err != nil {
		return err
	}
	rep := &store.Report{Kind: modeDiff, Params: []byte(`{}`), Summary: page.MustJSON(profileSummaryOf(tp))}
	refs := []store.Upload{
		{Name: base.Artifacts[0].Name, Label: base.Artifacts[0].Label, SHA256: base.Artifacts[0].SHA256},
		{Name: target.Artifacts[0].Name, Label: target.Artifacts[0].Label, SHA256: target.Artifacts[0].SHA256},
	}
	if err := s.d.Store.CreateReport(r.Context(), rep, refs); err != nil {
		return err
	}
	if page.WantsJSON(r) {
		return page.JSON(w, http.StatusCreated, map[string]string{"report_id": rep.ID, "report_url": page.ReportURL(rep.ID)})
	}
	http.Redirect(w, r, page.ReportURL(rep.ID), http.StatusSeeOther)
	return nil
}

// writeSeriesMarkdown writes a series' verdict and top suspects.
func writeSeriesMarkdown(w io.Writer, rep *series.Report) {
	fmt.Fprintf(w, "- Verdict: **%s** — %s\n", markdown.Escape(rep.VerdictText), markdown.Escape(rep.Reason))
	for _, warning := range rep.Warnings {
		fmt.Fprintf(w, "- Warning: %s\n", markdown.Escape(warning))
	}
	fmt.Fprintf(w, "- %s over %d snapshots: %s → %s\n", markdown.Escape(rep.SampleType), len(rep.Totals),
		analyze.FormatValue(rep.Total.First, rep.Unit), analyze.FormatValue(rep.Total.Last, rep.Unit))
	if len(rep.Suspects) == 0 {
		return
	}
	fmt.Fprint(w, "\n"+markdown.TableHead(markdown.Right("growth"), markdown.Right("per snapshot"), markdown.Right("steps up"), markdown.Right("R²"), markdown.Left(markdown.Escape(rep.By))))
	for i, s := range rep.Suspects {
		if i == 10 {
			break
		}
		fmt.Fprint(w, markdown.Row(analyze.FormatSignedValue(s.Growth, rep.Unit), chart.SignedFloat(s.Slope, rep.Unit),
			fmt.Sprintf("%d of %d", s.GrewSteps, s.Steps), fmt.Sprintf("%.2f", s.R2), markdown.Code(s.Name)))
	}
}
