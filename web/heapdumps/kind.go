package heapdumps

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/incident"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/snapshot"
)

// Kind is JVM heap dumps as a kind of evidence: one dump analyzed in the
// background, two or more compared by class in the background, their pages, JSON and
// Markdown, the dominator tree and the suspects' paths paged from the stored
// index.
type Kind struct {
	d *kind.Deps
	// jvmParsed is the JVM kinds' cache, which keeps a comparison's histograms.
	jvmParsed *kind.Cache[snapshot.Entry]
	// indexes keeps the stored indexes opened, by report id.
	indexes *kind.Cache[*hprof.Index]
	// failedReason reads the reason the background analysis stored for a
	// failed report: its status and message.
	failedReason func(reason string) (code int, msg string)
}

// New is the heap dumps kind over d, keeping comparisons in the JVM cache of
// jvm; failedReason reads the reason a failed background analysis stored.
func New(d *kind.Deps, jvm *snapshot.Loader, failedReason func(reason string) (code int, msg string)) *Kind {
	return &Kind{d: d, jvmParsed: jvm.Cache(), indexes: kind.NewCache[*hprof.Index](indexCacheEntries), failedReason: failedReason}
}

// Input is analyze.KindJVMHeapDump.
func (s *Kind) Input() analyze.Kind { return analyze.KindJVMHeapDump }

// Reports are the single dump and the comparison.
func (s *Kind) Reports() []string { return []string{ReportDump, ReportDiff} }

// Accepted is the upload page's line for heap dumps.
func (s *Kind) Accepted() []string {
	return []string{"JVM heap dumps: jcmd GC.heap_dump (also -gz=1), jmap -dump:format=b, -XX:+HeapDumpOnOutOfMemoryError (HPROF 1.0.1 and 1.0.2): leak suspects with their path to a GC root, the dominator tree, the histogram with retained sizes (two or more compare by class, three or more make a series)"}
}

// Plan checks the uploaded dumps' framing; one is analyzed in the background,
// two or more are compared in the background (plan).
func (s *Kind) Plan(ctx context.Context, up *kind.Upload) (*kind.Plan, error) {
	up.Ctx = ctx
	return s.plan(up)
}

// Page renders either kind of heap dump report.
func (s *Kind) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	if rep.Kind == ReportDiff {
		return s.showComparison(w, r, rep)
	}
	return s.showDump(w, r, rep)
}

// JSON fills the JSON twin of either kind of heap dump report.
func (s *Kind) JSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	if rep.Kind == ReportDiff {
		return s.comparisonJSON(r, rep, doc)
	}
	return s.dumpJSON(r, rep, doc)
}

// Markdown writes the Markdown of either kind of heap dump report.
func (s *Kind) Markdown(w io.Writer, r *http.Request, rep *store.Report) error {
	if rep.Kind == ReportDiff {
		return s.comparisonMarkdown(w, r, rep)
	}
	return s.dumpMarkdown(w, r, rep)
}

// Summary is the dashboard's line for either kind of heap dump report, told
// apart by the summary's shape.
func (s *Kind) Summary(raw json.RawMessage) string { return SummaryLine(raw, s.failedReason) }

// ViewCost is what a view of rep holds while it renders: its stored summary,
// which the dump controls the size of (viewBytes).
func (s *Kind) ViewCost(rep *store.Report) int64 { return viewBytes(rep) }

// Evidence judges a single heap dump by its leak suspects; a comparison shows
// its summary line.
func (s *Kind) Evidence(ctx context.Context, rep *store.Report, title, link string) (kind.Evidence, error) {
	if rep.Kind != ReportDump {
		return kind.NoVerdict("jvm heapdump diff", title, s.Summary(rep.Summary), link), nil
	}
	hr, _, err := StoredReport(rep)
	if err != nil {
		return kind.Evidence{}, err
	}
	return kind.Evidence{Evidence: incident.FromHeapDump(title, hr, link)}, nil
}

// maxListedClasses is how many of the class histogram's rows a heap dump is
// found by, beside its suspects: the classes its page shows first.
const maxListedClasses = 25

// Listing gives the words the dashboard's search finds a heap dump by: its
// suspects' classes, the fields and classes that hold them, what they hold,
// and the classes that retain the most (kind.Lister). Its title stays its
// file's name.
func (s *Kind) Listing(raw json.RawMessage) (title, terms string) {
	var sum struct {
		Report *struct {
			Suspects []struct {
				Class, Holder, Element string
				Chain                  []string
			} `json:"suspects"`
			Histogram []struct {
				Name string `json:"name"`
			} `json:"histogram"`
		} `json:"report"`
	}
	if json.Unmarshal(raw, &sum) != nil || sum.Report == nil {
		return "", ""
	}
	var words []string
	for _, sp := range sum.Report.Suspects {
		words = append(words, sp.Class, sp.Holder, sp.Element)
		words = append(words, sp.Chain...)
	}
	for _, c := range sum.Report.Histogram[:min(len(sum.Report.Histogram), maxListedClasses)] {
		words = append(words, c.Name)
	}
	return "", strings.Join(words, " ")
}
