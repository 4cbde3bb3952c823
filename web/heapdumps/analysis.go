package heapdumps

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// jobStages are the stages of a heap dump's background analysis in order,
// each with the share of the whole it takes (roughly, as measured on the 1 GiB
// dump): the bar moves through them.
var jobStages = []struct {
	name, label string
	weight      float64
}{
	{"waiting", "Waiting for the analyzer", 0},
	{"load", "Reading the dump from the store", 5},
	{"read", "Reading the objects", 25},
	{"index", "Indexing the object identifiers", 5},
	{"references", "Reading the references", 20},
	{"dominators", "Computing the dominator tree", 20},
	{"retained", "Computing retained sizes", 5},
	{"paths", "Finding the paths to the GC roots", 5},
	{"histogram", "Counting classes", 3},
	{"suspects", "Finding the leak suspects", 2},
	{"names", "Naming objects", 2},
	{"store-index", "Storing the index", 8},
}

// JobProgress turns a stage and the fraction of it done into the stage's
// label and the whole analysis's percentage.
func JobProgress(stage string, done float64) (string, float64) {
	var total, before float64
	for _, s := range jobStages {
		total += s.weight
	}
	for _, s := range jobStages {
		if s.name == stage {
			return s.label, 100 * (before + s.weight*min(max(done, 0), 1)) / total
		}
		before += s.weight
	}
	switch stage {
	case "queued":
		return "Queued", 0
	case "retry":
		return "Waiting to try again", 0
	}
	return stage, 0
}

// reportState is where a report stands: done, failed (why), or analyzing (how
// far, here or in another process).
func (j *Jobs) reportState(rep *store.Report) JobState {
	switch rep.Status {
	case store.ReportReady:
		return JobState{Status: "done", Percent: 100}
	case store.ReportFailed:
		code, msg := background.ParseFailedReason(rep.Error)
		return JobState{Status: store.ReportFailed, Error: msg, Code: code}
	}
	st, ok, _ := j.state(rep.ID)
	if !ok {
		return JobState{Status: store.ReportAnalyzing, Stage: "Analyzing in another process", Elsewhere: true}
	}
	describeProgress(&st, rep)
	return st
}

// Page renders the page of a report that is not ready: its analysis's
// progress, or why it failed.
func (j *Jobs) Page(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	st := j.reportState(rep)
	path := page.ReportURL(rep.ID)
	h := view.JVMHeader{Title: "JVM heap dump", Created: page.FormatTime(rep.CreatedAt), Permalink: path,
		Links: []view.Link{{Label: "JSON", URL: page.ReportJSONURL(rep.ID)}, {Label: "Markdown", URL: path + ".md"}}}
	for _, a := range rep.Artifacts {
		h.Files = append(h.Files, view.FileInfo{Name: a.Name, Kind: "JVM heap dump", Size: analyze.FormatBytes(a.Size), SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)})
		if h.Label == "" {
			h.Label = a.Label
		}
	}
	if st.Status == store.ReportFailed {
		h.Headline, h.Alarm = "The heap dump could not be analyzed.", true
	} else {
		h.Headline = "Analyzing the heap dump…"
	}
	if rep.Kind == ReportDiff {
		h.Title, h.Headline = comparisonHeadline(rep, st)
	}
	pg := view.HeapDumpAnalysis{Header: h, Status: st.Status, Stage: st.Stage, Percent: int(st.Percent), Queue: st.Queue,
		Error: st.Error, Code: st.Code, EventsURL: page.ReportEventsURL(rep.ID), Refresh: path}
	return j.k.d.Render(w, r, http.StatusOK, view.Page{Title: h.Title, Nav: "reports"}, view.HeapDumpAnalysisView(pg))
}

// JSON fills the JSON twin of a report that is not ready.
func (j *Jobs) JSON(rep *store.Report, doc *kind.ReportJSON) {
	st := j.reportState(rep)
	doc.Status, doc.Progress = st.Status, &st
}

// Markdown is the Markdown of a report that is not ready.
func (j *Jobs) Markdown(r *http.Request, rep *store.Report) []byte {
	st := j.reportState(rep)
	var b strings.Builder
	title := "JVM heap dump"
	if rep.Kind == ReportDiff {
		title = "JVM heap dumps"
	}
	b.WriteString(markdown.Heading(3, "leakui: "+title))
	fmt.Fprintf(&b, "- Report: %s\n", page.Absolute(r, page.ReportURL(rep.ID)))
	for _, a := range rep.Artifacts {
		fmt.Fprintf(&b, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	}
	if st.Status == store.ReportFailed {
		fmt.Fprintf(&b, "\nThe analysis failed (%d): %s\n", st.Code, markdown.Escape(st.Error))
	} else {
		fmt.Fprintf(&b, "\nThe analysis is running (%s, %.0f%%): the report will be at the link above.\n", markdown.Escape(st.Stage), st.Percent)
	}
	return []byte(b.String())
}

// Events is GET /r/{id}/events: server-sent events with the report's
// analysis, at most one every 250 ms, starting with the current state, and an
// "end" event once the report is done or failed (then the page reloads). An
// analysis in another process is followed through the store.
func (j *Jobs) Events(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "id")
	st := j.k.d.Store
	if _, err := st.Report(r.Context(), id); err != nil {
		return err
	}
	send, err := page.StartEventStream(w)
	if err != nil {
		return err
	}
	ctx := r.Context()
	closing := j.k.d.Closing
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		// Read the store first, then this process's queue: a report that leaves
		// the queue is recorded before it does.
		_, _, changed := j.state(id)
		rep, err := st.Report(ctx, id)
		if err != nil {
			return nil // the stream is open; end it
		}
		state := j.reportState(rep)
		if err := send("progress", state); err != nil {
			return nil
		}
		if state.Status != store.ReportAnalyzing {
			send("end", map[string]string{"status": state.Status, "url": page.ReportURL(id)})
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-closing:
			return nil
		case <-changed:
		case <-poll.C:
		}
		if !page.Pause(ctx, closing) {
			return nil
		}
	}
}
