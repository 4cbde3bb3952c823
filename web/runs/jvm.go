package runs

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/leakui/leakui/web/classhist"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// A jvm run (the recovery workload's variant that runs GzipLeak.java on a real
// JDK) stores what it captured of the JVM as captures of role lab.RoleJVM: the
// two capture bundles `leakui capture jvm` took before the streams and with them
// open (runs of earlier versions stored the jcmd outputs themselves: native
// memory summaries and a class histogram). When the run ends, its report makes
// the report an upload of the same files would (a capture report; a native
// memory diff and a class histogram report), and the run's page, JSON and
// Markdown show them with the same code.

// runJVMClassRows is how many classes the run page shows of the histogram.
const runJVMClassRows = 15

// JVMRef names a report a jvm run's report made over what it captured.
type JVMRef struct {
	// Kind is the files' kind: capture, jvm-nmt or jvm-histogram.
	Kind     string `json:"kind"`
	ReportID string `json:"report_id"`
}

// runJVMFiles are a run's captures of its JVM by kind, in capture order.
type runJVMFiles struct {
	captures, nmt, histograms []store.ReportArtifact
}

// jvmFilesOf sorts a run's captures of role jvm by their detected kind.
func (s *Kind) jvmFilesOf(ctx context.Context, arts []store.RunArtifact) (runJVMFiles, error) {
	var f runJVMFiles
	for _, a := range arts {
		if a.Role != lab.RoleJVM {
			continue
		}
		art, err := s.d.Store.Artifact(ctx, a.SHA256)
		if err != nil {
			return f, err
		}
		ra := store.ReportArtifact{Artifact: *art, Name: a.Name, Label: a.Role}
		switch analyze.Kind(art.Kind) {
		case analyze.KindCapture:
			f.captures = append(f.captures, ra)
		case analyze.KindJVMNMT:
			f.nmt = append(f.nmt, ra)
		case analyze.KindJVMHistogram:
			f.histograms = append(f.histograms, ra)
		}
	}
	return f, nil
}

// loadRunSnapshots parses files (cached like a JVM report's) into their
// snapshots in capture order, with the parameters a JVM report stores.
func loadRunSnapshots[T any](ctx context.Context, s *Kind, files []store.ReportArtifact, prefix string, parse func(io.Reader, *analyze.Budget) ([]T, error)) ([]T, snapshot.Params, error) {
	var out []T
	var params snapshot.Params
	for i, f := range files {
		vs, err := snapshot.LoadParsed(ctx, s.JVMCache, f, prefix, parse)
		if err != nil {
			return nil, params, err
		}
		for k, v := range vs {
			out = append(out, v)
			params.Snapshots = append(params.Snapshots, snapshot.Ref{File: i, Index: k})
		}
	}
	if len(out) > 1 {
		params.OrderedBy = "capture order"
	}
	return out, params, nil
}

// JVMReports makes the reports of a jvm run's captures of its JVM, as an upload of
// the same files would. Outputs the JVM parsers refuse make no report (the run
// page lists them among its files all the same); they do not fail the run.
func (s *Kind) JVMReports(ctx context.Context, runID string, arts []store.RunArtifact) ([]JVMRef, error) {
	files, err := s.jvmFilesOf(ctx, arts)
	if err != nil {
		return nil, err
	}
	var refs []JVMRef
	create := func(rk analyze.Kind, plan *kind.Plan, fs []store.ReportArtifact) error {
		uploads := make([]store.Upload, len(fs))
		for i, f := range fs {
			uploads[i] = store.Upload{Name: f.Name, SHA256: f.SHA256, Label: f.Label}
		}
		rep := &store.Report{Kind: plan.Kind, RunID: runID, Params: page.MustJSON(plan.Params), Summary: page.MustJSON(plan.Summary)}
		if err := s.d.Store.CreateReport(ctx, rep, uploads); err != nil {
			return err
		}
		refs = append(refs, JVMRef{Kind: string(rk), ReportID: rep.ID})
		return nil
	}
	if len(files.captures) > 0 {
		c, err := s.runCaptureReport(ctx, files.captures)
		if err == nil {
			plan := &kind.Plan{Kind: s.Figures.CaptureKind, Params: map[string]any{"ordered_by": "capture time"}, Summary: s.Figures.CaptureSummary(c)}
			if err := create(analyze.KindCapture, plan, files.captures); err != nil {
				return nil, err
			}
		} else {
			s.d.Log.Warn("a jvm run's capture bundles make no report", "run", runID, "err", err)
		}
	}
	if len(files.nmt) > 0 {
		ns, params, err := loadRunSnapshots(ctx, s, files.nmt, s.Figures.NMTPrefix, jvm.ParseNMTsWithin)
		if err == nil && len(ns) > 0 {
			if err := create(analyze.KindJVMNMT, s.Figures.NMTPlan(ns, params), files.nmt); err != nil {
				return nil, err
			}
		} else if err != nil {
			s.d.Log.Warn("a jvm run's native memory summaries make no report", "run", runID, "err", err)
		}
	}
	if len(files.histograms) > 0 {
		hs, params, err := loadRunSnapshots(ctx, s, files.histograms, classhist.Prefix, jvm.ParseHistogramsWithin)
		var plan *kind.Plan
		if err == nil && len(hs) > 0 {
			plan, err = s.Figures.HistogramPlan(hs, params, func(i int) string { return files.histograms[params.Snapshots[i].File].Name })
		}
		if err != nil {
			s.d.Log.Warn("a jvm run's class histograms make no report", "run", runID, "err", err)
		} else if plan != nil {
			if err := create(analyze.KindJVMHistogram, plan, files.histograms); err != nil {
				return nil, err
			}
		}
	}
	return refs, nil
}

// runCaptureReport reads a run's capture bundles (cached as an upload's are)
// and judges them, as a capture report of the same files does.
func (s *Kind) runCaptureReport(ctx context.Context, files []store.ReportArtifact) (*capture.Report, error) {
	caps := make([]*capture.Capture, len(files))
	for i, f := range files {
		c, err := snapshot.LoadParsed(ctx, s.JVMCache, f, s.Figures.CapturePrefix, s.Figures.ParseCapture)
		if err != nil {
			return nil, err
		}
		caps[i] = c
	}
	return capture.Analyze(caps)
}

// runJVM is what a run's captures of its JVM say: the capture bundles'
// report (package analyze/capture), or for runs of earlier versions the jcmd
// outputs read with package analyze/jvm (the native memory summaries first →
// last and the last class histogram).
type runJVM struct {
	CaptureFiles []string
	Capture      *capture.Report
	NMTFiles     []string
	NMT          []*jvm.NMT
	Histogram    *jvm.Histogram
	HistoFile    string
	// Reports are the JVM reports the run's report made, by kind.
	Reports map[string]string
	// fig are the JVM kinds' figures it is shown with.
	fig *JVMFigures
}

// runJVMOf reads a run's captures of its JVM; nil when it has none.
func (s *Kind) runJVMOf(ctx context.Context, runID, reportID string) (*runJVM, error) {
	arts, err := s.d.Store.RunArtifacts(ctx, runID)
	if err != nil {
		return nil, err
	}
	files, err := s.jvmFilesOf(ctx, arts)
	if err != nil || (len(files.nmt) == 0 && len(files.histograms) == 0 && len(files.captures) == 0) {
		return nil, err
	}
	j := &runJVM{Reports: map[string]string{}, fig: &s.Figures}
	if reportID != "" {
		if rep, err := s.d.Store.Report(ctx, reportID); err == nil {
			var sum struct {
				JVM []JVMRef `json:"jvm"`
			}
			page.Unmarshal(rep.Summary, &sum)
			for _, ref := range sum.JVM {
				j.Reports[ref.Kind] = ref.ReportID
			}
		}
	}
	// Outputs the parsers refuse are left out here as they are from the reports.
	if len(files.captures) > 0 {
		if c, err := s.runCaptureReport(ctx, files.captures); err == nil {
			j.Capture = c
			for _, f := range files.captures {
				j.CaptureFiles = append(j.CaptureFiles, f.Name)
			}
		}
	}
	if ns, _, err := loadRunSnapshots(ctx, s, files.nmt, s.Figures.NMTPrefix, jvm.ParseNMTsWithin); err == nil {
		j.NMT = ns
		for _, f := range files.nmt {
			j.NMTFiles = append(j.NMTFiles, f.Name)
		}
	}
	if hs, _, err := loadRunSnapshots(ctx, s, files.histograms, classhist.Prefix, jvm.ParseHistogramsWithin); err == nil && len(hs) > 0 {
		j.Histogram, j.HistoFile = hs[len(hs)-1], files.histograms[len(files.histograms)-1].Name
	}
	return j, nil
}

// nmtDiff is first → last of the native memory summaries, nil with fewer
// than two.
func (j *runJVM) nmtDiff() *jvm.NMTDiff {
	if len(j.NMT) < 2 {
		return nil
	}
	return jvm.DiffNMT(j.NMT[0], j.NMT[len(j.NMT)-1])
}

// jvmClass finds a class of the histogram by name.
func jvmClass(h *jvm.Histogram, name string) (jvm.Class, bool) {
	for _, c := range h.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return jvm.Class{}, false
}

// inflaterClass is the class whose instances each unclosed GZIPInputStream
// keeps, with its native zlib state.
const inflaterClass = "java.util.zip.Inflater"

// view draws the run's jcmd outputs with the JVM report pages' figures and
// tables.
func (j *runJVM) view() *view.RunJVM {
	out := &view.RunJVM{}
	if c := j.Capture; c != nil && c.JVM != nil {
		p := view.RunJVMPart{ID: "capture", Title: "The JVM, captured before its streams and with them open (leakui capture jvm)", Files: j.CaptureFiles,
			Headline: c.Verdict.Sentence, Alarm: c.Verdict.Leak, Figures: j.fig.CaptureFigures(c.JVM)}
		if c.JVM.NMT != nil {
			p.Changes = snapshot.NMTChanges(c.JVM.NMT)
		}
		if h := c.Captures[len(c.Captures)-1].Histogram; h != nil {
			t := classhist.ClassTable(h, jvm.ByBytes, runJVMClassRows, "")
			p.Classes = &t
		}
		if id, ok := j.Reports[string(analyze.KindCapture)]; ok {
			p.ReportURL, p.ReportLabel = page.ReportURL(id), "Open as a capture report"
		}
		out.Parts = append(out.Parts, p)
	}
	if len(j.NMT) > 0 {
		p := view.RunJVMPart{ID: "nmt", Title: "Native memory (jcmd VM.native_memory summary)", Files: j.NMTFiles}
		if d := j.nmtDiff(); d != nil {
			p.Title += ", first → last"
			p.Headline, p.Alarm = d.Headline(), d.NativeLeak != nil
			p.Figures, p.Leak, p.Changes = j.fig.NMTDiffFigures(d), j.fig.NativeLeak(d), snapshot.NMTChanges(d)
		} else {
			p.Headline, p.Figures = j.NMT[0].Headline(), j.fig.NMTFigures(j.NMT[0])
		}
		if id, ok := j.Reports[string(analyze.KindJVMNMT)]; ok {
			p.ReportURL, p.ReportLabel = page.ReportURL(id), "Open in the JVM native memory view"
		}
		out.Parts = append(out.Parts, p)
	}
	if h := j.Histogram; h != nil {
		p := view.RunJVMPart{ID: "histogram", Title: "Class histogram (jcmd GC.class_histogram)", Files: []string{j.HistoFile},
			Headline: classhist.Headline(h), Figures: classhist.Figures(h)}
		if c, ok := jvmClass(h, inflaterClass); ok {
			p.Figures = append(p.Figures, view.JVMFigure{Label: inflaterClass + " instances (one per stream left open)",
				Value: analyze.FormatCount(c.Instances), Key: "inflater-instances"})
		}
		showAll := ""
		if id, ok := j.Reports[string(analyze.KindJVMHistogram)]; ok {
			p.ReportURL, p.ReportLabel = page.ReportURL(id), "Open in the JVM class histogram view"
			showAll = page.ReportURL(id) + "?n=all"
		}
		t := classhist.ClassTable(h, jvm.ByBytes, runJVMClassRows, showAll)
		p.Classes = &t
		out.Parts = append(out.Parts, p)
	}
	return out
}

// runJVMJSON is the JVM part of a jvm run's report JSON: the same numbers
// package analyze/jvm reports for the files, and the JVM reports made of them.
type runJVMJSON struct {
	Capture       any             `json:"capture,omitempty"`
	NMTFiles      []string        `json:"nmt_files,omitempty"`
	NMT           []*jvm.NMT      `json:"nmt,omitempty"`
	NMTComparison *jvm.NMTDiff    `json:"nmt_comparison,omitempty"`
	NativeLeak    *jvm.NativeLeak `json:"native_leak,omitempty"`
	NMTReportURL  string          `json:"nmt_report_url,omitempty"`
	HistogramFile string          `json:"histogram_file,omitempty"`
	Histogram     *jvmHistogramOf `json:"histogram,omitempty"`
	HistoReport   string          `json:"histogram_report_url,omitempty"`
}

// jvmHistogramOf is a histogram's totals and its largest classes.
type jvmHistogramOf struct {
	Classes          int         `json:"classes"`
	TotalInstances   int64       `json:"total_instances"`
	TotalBytes       int64       `json:"total_bytes"`
	InflaterInstance int64       `json:"inflater_instances"`
	Largest          []jvm.Class `json:"largest"`
}

func (j *runJVM) json() runJVMJSON {
	out := runJVMJSON{NMTFiles: j.NMTFiles, NMT: j.NMT, NMTComparison: j.nmtDiff()}
	if j.Capture != nil {
		url := ""
		if id, ok := j.Reports[string(analyze.KindCapture)]; ok {
			url = page.ReportURL(id)
		}
		out.Capture = j.fig.CaptureJSON(j.CaptureFiles, j.Capture, url)
	}
	if out.NMTComparison != nil {
		out.NativeLeak = out.NMTComparison.NativeLeak
	}
	if id, ok := j.Reports[string(analyze.KindJVMNMT)]; ok {
		out.NMTReportURL = page.ReportURL(id)
	}
	if h := j.Histogram; h != nil {
		out.HistogramFile = j.HistoFile
		c, _ := jvmClass(h, inflaterClass)
		out.Histogram = &jvmHistogramOf{Classes: len(h.Classes), TotalInstances: h.TotalInstances, TotalBytes: h.TotalBytes,
			InflaterInstance: c.Instances, Largest: snapshot.First(h.Ranked(jvm.ByBytes), runJVMClassRows)}
		if id, ok := j.Reports[string(analyze.KindJVMHistogram)]; ok {
			out.HistoReport = page.ReportURL(id)
		}
	}
	return out
}

// markdown writes the JVM lines of a jvm run's ticket summary.
func (j *runJVM) markdown(w io.Writer, r *http.Request) {
	if c := j.Capture; c != nil {
		sum := j.fig.CaptureFacts(c)
		fmt.Fprintf(w, "- JVM captured with leakui capture jvm (%s): %s", markdown.Escape(joinArrow(j.CaptureFiles)), markdown.Escape(sum.Sentence))
		if u := sum.UntrackedNativeDeltaBytes; u != nil {
			fmt.Fprintf(w, " Untracked native memory (`untracked_native_delta_bytes`): %s.", analyze.FormatSignedValue(*u, "bytes"))
		}
		if n := sum.InflatersAlive; n != nil {
			fmt.Fprintf(w, " `java.util.zip.Inflater` alive (`inflaters_alive`): %s.", analyze.FormatCount(*n))
		}
		if id, ok := j.Reports[string(analyze.KindCapture)]; ok {
			fmt.Fprintf(w, " Report %s", page.Absolute(r, page.ReportURL(id)))
		}
		fmt.Fprintln(w)
	}
	if d := j.nmtDiff(); d != nil {
		fmt.Fprintf(w, "- JVM native memory (jcmd VM.native_memory summary, %s): committed %s → %s (%s), outside the Java heap %s",
			markdown.Escape(joinArrow(j.NMTFiles)), analyze.FormatBytes(d.BaseTotalCommitted), analyze.FormatBytes(d.TotalCommitted),
			analyze.FormatSignedValue(d.TotalCommittedDelta, "bytes"), analyze.FormatSignedValue(d.NonHeapCommittedDelta, "bytes"))
		if id, ok := j.Reports[string(analyze.KindJVMNMT)]; ok {
			fmt.Fprintf(w, "; report %s", page.Absolute(r, page.ReportURL(id)))
		}
		fmt.Fprintln(w)
	}
	if h := j.Histogram; h != nil {
		fmt.Fprintf(w, "- JVM class histogram (jcmd GC.class_histogram, %s): %s classes, %s instances, %s",
			markdown.Code(j.HistoFile), analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes))
		if c, ok := jvmClass(h, inflaterClass); ok {
			fmt.Fprintf(w, "; %s %s instances", markdown.Code(inflaterClass), analyze.FormatCount(c.Instances))
		}
		if id, ok := j.Reports[string(analyze.KindJVMHistogram)]; ok {
			fmt.Fprintf(w, "; report %s", page.Absolute(r, page.ReportURL(id)))
		}
		fmt.Fprintln(w)
	}
}

func joinArrow(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += " → "
		}
		s += n
	}
	return s
}
