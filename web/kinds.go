package web

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
)

// reportKind is how one kind of report is shown: as a page, as JSON (filling
// doc.Analysis or a dedicated field) and as Markdown. Each kind registers itself in
// reportKinds from the file that implements it.
type reportKind struct {
	show     func(s *Server, w http.ResponseWriter, r *http.Request, rep *store.Report) error
	json     func(s *Server, r *http.Request, rep *store.Report, doc *reportJSON) error
	markdown func(s *Server, w io.Writer, r *http.Request, rep *store.Report) error
	// summary renders the stored summary (store.Report.Summary) as one line for
	// the dashboard's list of recent reports; nil shows none.
	summary func(raw json.RawMessage) string
}

// planner turns an upload whose files are all of one analyze kind into a report
// plan; it validates every file (parsing it) so nothing is stored for a bad one, and
// may reorder form.files.
type planner func(s *Server, form *uploadForm) (*reportPlan, error)

// inputKind is one kind of evidence leakui accepts by upload: what the upload
// pages say of it, the planner that turns files of that kind into a report, and the
// report kinds it makes with their views.
type inputKind struct {
	kind     analyze.Kind
	accepted []string // lines for the upload page and the unsupported-kind message
	plan     planner
	reports  []string // the report kinds (store.Report.Kind) it makes
	views    reportKind
}

// inputKinds lists every kind of evidence leakui accepts, in the order the upload
// page and errors name them: pprof profiles first (the most common input), then Go
// goroutine dumps, the JVM's three outputs, and logs, the kind any other text is.
func inputKinds() []inputKind {
	return []inputKind{
		{
			kind:     analyze.KindProfile,
			accepted: []string{"pprof profiles: heap, allocs, goroutine, CPU, block, mutex, threadcreate (profile.proto, gzipped or not, and the legacy text and binary formats)"},
			plan:     (*Server).planProfiles,
			reports:  []string{modeSingle, modeDiff, modeSeries},
			views: reportKind{
				show:     (*Server).showProfiles,
				json:     (*Server).profilesJSON,
				markdown: (*Server).profilesMarkdown,
				summary:  profileSummaryLine,
			},
		},
		{
			kind:     analyze.KindGoroutines,
			accepted: []string{"Go goroutine dumps: /debug/pprof/goroutine?debug=1 and debug=2, panic and fatal error output, SIGQUIT dumps, runtime.Stack(buf, true); two or more dumps show what is new or grew"},
			plan:     (*Server).planGoroutines,
			reports:  []string{kindGoroutines, kindGoroutinesDiff},
			views: reportKind{
				show:     (*Server).showGoroutines,
				json:     (*Server).goroutinesJSON,
				markdown: (*Server).goroutinesMarkdown,
				summary:  goroutineSummaryLine,
			},
		},
		{
			kind:     analyze.KindJavaHistogram,
			accepted: []string{"JVM class histograms: jmap -histo[:live], jcmd GC.class_histogram, jmap -F, JDK 5 to 25 (two or more make a diff of what grew)"},
			plan:     (*Server).planJavaHistograms,
			reports:  []string{kindJavaHistogram, kindJavaHistogramDiff},
			views: reportKind{
				show:     (*Server).showJavaHistograms,
				json:     (*Server).javaHistogramsJSON,
				markdown: (*Server).javaHistogramsMarkdown,
				summary:  javaHistogramSummaryLine,
			},
		},
		{
			kind:     analyze.KindJavaThreads,
			accepted: []string{"JVM thread dumps: jstack, jcmd Thread.print, SIGQUIT output in a log, JDK 5 to 25 (two make a diff of new and grown groups)"},
			plan:     (*Server).planJavaThreads,
			reports:  []string{kindJavaThreads, kindJavaThreadsDiff},
			views: reportKind{
				show:     (*Server).showJavaThreads,
				json:     (*Server).javaThreadsJSONOf,
				markdown: (*Server).javaThreadsMarkdown,
				summary:  javaThreadsSummaryLine,
			},
		},
		{
			kind:     analyze.KindJavaNMT,
			accepted: []string{"JVM native memory tracking: jcmd VM.native_memory summary or summary.diff, in any scale (two make a diff)"},
			plan:     (*Server).planJavaNMT,
			reports:  []string{kindJavaNMT, kindJavaNMTDiff},
			views: reportKind{
				show:     (*Server).showJavaNMT,
				json:     (*Server).javaNMTJSONOf,
				markdown: (*Server).javaNMTMarkdown,
				summary:  javaNMTSummaryLine,
			},
		},
		{
			kind:     analyze.KindLog,
			accepted: []string{"Logs: any text log, plain, gzip or zstd, counted like grep -c: patterns (literal or RE2), start/close pairs with the keys never closed, counts over time, and presets for SAMZA-2785, Kafka consumer groups and KAFKA-3933"},
			plan:     (*Server).planLogs,
			reports:  []string{kindLog},
			views: reportKind{
				show:     (*Server).showLog,
				json:     (*Server).logJSONOf,
				markdown: (*Server).logMarkdown,
				summary:  logSummaryLine,
			},
		},
	}
}

// kindRegistry holds the lookups the server builds once from inputKinds and the
// lab's run reports: the views of each report kind, the planner of each input
// kind, and what the upload pages say leakui accepts.
type kindRegistry struct {
	reports  map[string]reportKind
	planners map[analyze.Kind]planner
	accepted []string
}

// newKindRegistry builds the registry; two entries for one kind are a programming
// error and panic at start.
func newKindRegistry() *kindRegistry {
	r := &kindRegistry{reports: map[string]reportKind{}, planners: map[analyze.Kind]planner{}}
	addReport := func(kind string, views reportKind) {
		if _, dup := r.reports[kind]; dup {
			panic("web: report kind " + kind + " is registered twice")
		}
		r.reports[kind] = views
	}
	for _, in := range inputKinds() {
		if _, dup := r.planners[in.kind]; dup {
			panic("web: input kind " + string(in.kind) + " is registered twice")
		}
		r.planners[in.kind] = in.plan
		r.accepted = append(r.accepted, in.accepted...)
		for _, k := range in.reports {
			addReport(k, in.views)
		}
	}
	addReport(kindRun, runReportKind())
	return r
}
