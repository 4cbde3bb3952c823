package bundles

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// A capture bundle (`leakui capture jvm|go`) uploads as one file and makes one
// report; two or more bundles of one process make one report over all of them,
// oldest first. Package analyze/capture reads and judges them; this file shows
// the result as a page, JSON and Markdown.

// kindCapture is the report kind of capture bundles; Prefix keys parsed
// bundles in the cache of parsed JVM inputs.
const (
	kindCapture = "capture"
	Prefix      = "capture"
)

// Summary is stored with a capture report for the dashboard's list and
// the upload's answer.
type Summary struct {
	CaptureKind string `json:"capture_kind"`
	Target      string `json:"target"`
	Bundles     int    `json:"bundles"`
	// Verdict is "leak" or "no leak"; Cause and Sentence say which and why.
	Verdict                   string `json:"verdict"`
	Cause                     string `json:"cause,omitempty"`
	Sentence                  string `json:"sentence"`
	UntrackedNativeDeltaBytes *int64 `json:"untracked_native_delta_bytes,omitempty"`
	InflatersAlive            *int64 `json:"inflaters_alive,omitempty"`
}

// captureLimits bound what one bundle may hold: each file and the sum, within
// what the server decompresses at most.
func (s *Kind) captureLimits() capture.Limits {
	return capture.Limits{MaxFileBytes: min(capture.DefaultMaxFileBytes, s.d.Limits.MaxDecompressed), MaxTotalBytes: min(capture.DefaultMaxTotalBytes, s.d.Limits.MaxDecompressed)}
}

// ParseCapture reads a decompressed bundle and parses its steps' outputs; the
// raw outputs are given back to the budget once parsed (see capture.ReadCapture).
func (s *Kind) ParseCapture(r io.Reader, b *analyze.Budget) (*capture.Capture, error) {
	bundle, err := capture.Read(r, s.captureLimits(), b)
	if err != nil {
		return nil, err
	}
	c, err := capture.Parse(bundle, s.d.Limits.MaxDecompressed, b)
	b.Uncharge(min(bundle.Size(), b.Used()))
	return c, err
}

// planCaptures makes the report of one or more bundles of one process; files go
// in the order their captures were taken.
func (s *Kind) planCaptures(form *kind.Upload) (*kind.Plan, error) {
	caps := make([]*capture.Capture, len(form.Files))
	for i, f := range form.Files {
		c, err := snapshot.ParseReceived(s.jvm, f, Prefix, s.ParseCapture)
		if err != nil {
			return nil, err
		}
		caps[i] = c
	}
	rep, err := capture.Analyze(caps)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(caps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return caps[order[a]].Manifest.Started.Before(caps[order[b]].Manifest.Started) })
	files := make([]*kind.Received, len(order))
	for i, k := range order {
		files[i] = form.Files[k]
	}
	form.Files = files
	return &kind.Plan{Kind: kindCapture, Params: map[string]any{"ordered_by": "capture time"}, Summary: SummaryOf(rep)}, nil
}

// SummaryOf is the stored summary of a capture report.
func SummaryOf(rep *capture.Report) Summary {
	sum := Summary{CaptureKind: string(rep.Kind), Target: rep.Target.String(), Bundles: len(rep.Bundles),
		Verdict: "no leak", Cause: rep.Verdict.Cause, Sentence: rep.Verdict.Sentence}
	if rep.Verdict.Leak {
		sum.Verdict = "leak"
	}
	if j := rep.JVM; j != nil {
		if j.Complete {
			sum.UntrackedNativeDeltaBytes = &j.UntrackedNativeDeltaBytes
		}
		if rep.Captures[len(rep.Captures)-1].Histogram != nil {
			sum.InflatersAlive = &j.InflatersAlive
		}
	}
	return sum
}

// captureSummaryLine is the dashboard's line for a capture report.
func captureSummaryLine(raw json.RawMessage) string {
	var s Summary
	if json.Unmarshal(raw, &s) != nil || s.Bundles == 0 {
		return ""
	}
	line := fmt.Sprintf("%s capture of %s, %d %s", strings.ToUpper(s.CaptureKind), s.Target, s.Bundles, page.OneOrMany(s.Bundles, "bundle", "bundles"))
	if s.UntrackedNativeDeltaBytes != nil {
		line += "; untracked native " + analyze.FormatSignedValue(*s.UntrackedNativeDeltaBytes, "bytes")
	}
	if s.InflatersAlive != nil && *s.InflatersAlive > 0 {
		line += "; " + analyze.FormatCount(*s.InflatersAlive) + " Inflaters alive"
	}
	if s.Cause != "" {
		line += "; " + s.Cause
	}
	return line
}

// loadCaptureReport parses a stored report's bundles (cached) and judges them.
func (s *Kind) loadCaptureReport(ctx context.Context, rep *store.Report) (*capture.Report, error) {
	caps := make([]*capture.Capture, len(rep.Artifacts))
	for i, a := range rep.Artifacts {
		c, err := snapshot.LoadParsed(ctx, s.jvm, a, Prefix, s.ParseCapture)
		if err != nil {
			return nil, err
		}
		caps[i] = c
	}
	return capture.Analyze(caps)
}

// captureTitle names a capture report.
func captureTitle(c *capture.Report) string {
	what := "JVM"
	if c.Kind == capture.KindGo {
		what = "Go process"
	}
	return fmt.Sprintf("Capture of a %s: %s", what, c.Target)
}

// showCapture renders /r/{id} for capture bundles.
func (s *Kind) showCapture(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	c, err := s.loadCaptureReport(r.Context(), rep)
	if err != nil {
		return err
	}
	pg := capturePage(rep, c)
	return s.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Header.Title, Nav: "reports", Description: pg.Header.Headline}, view.CapturePageView(pg))
}

// capturePage is the page model of a capture report.
func capturePage(rep *store.Report, c *capture.Report) view.CapturePage {
	h := snapshot.Header(rep, snapshot.Query{Snapshot: -1}, captureTitle(c), func(i int) string {
		return "leakui capture bundle (" + string(c.Kind) + ")"
	}, func(i int) time.Time {
		if i < len(c.Bundles) {
			return c.Bundles[i].Started
		}
		return time.Time{}
	})
	h.Headline, h.Alarm, h.Notices = c.Verdict.Sentence, c.Verdict.Leak, c.Problems
	pg := view.CapturePage{Header: h, Cause: c.Verdict.Cause}
	if j := c.JVM; j != nil {
		pg.Figures = JVMFigures(j)
		pg.Formula = captureFormula(j)
		for i, row := range j.Rows {
			r := view.CaptureJVMRow{Number: i + 1, Taken: page.FormatTime(row.Time), RSS: bytesOrDash(row.RSS), Tracked: bytesOrDash(row.TrackedOutsideHeap),
				Heap: bytesOrDash(row.Heap), Untracked: "–", Inflaters: "–", Deflaters: "–", Direct: "–", Threads: countOrDash(row.Threads)}
			if i > 0 && j.Complete {
				r.Untracked, r.UntrackedGrew = analyze.FormatSignedValue(row.Untracked, "bytes"), row.Untracked > 0
			}
			if row.HistogramTaken {
				r.Inflaters, r.Deflaters, r.Direct = analyze.FormatCount(row.Inflaters), analyze.FormatCount(row.Deflaters), analyze.FormatCount(row.DirectBuffers)
			}
			pg.JVM = append(pg.JVM, r)
		}
		if j.NMT != nil {
			pg.Changes = snapshot.NMTChanges(j.NMT)
		}
	}
	if g := c.Go; g != nil {
		pg.Figures = captureGoFigures(g)
		for _, s := range g.Snapshots {
			r := view.CaptureGoRow{Number: len(pg.Go) + 1, Taken: page.FormatTime(s.Time), HeapInuse: bytesOrDash(s.HeapInuse), HeapObjects: countOrDash(s.HeapObjects),
				Goroutines: countOrDash(s.Goroutines), Leaked: countOrDash(s.Leaked), HeapSys: "–", Sys: "–", NumGC: "–"}
			if s.Leaked < 0 {
				r.Leaked = "not served"
			}
			if m := s.MemStats; m != nil {
				r.HeapSys, r.Sys, r.NumGC = bytesOrDash(m.HeapSys), bytesOrDash(m.Sys), countOrDash(m.NumGC)
			}
			pg.Go = append(pg.Go, r)
		}
		if g.HeapSeries != nil {
			pg.Series = append(pg.Series, view.Pair{Label: "Heap series (" + g.HeapSeries.VerdictText + ")", Value: g.HeapSeries.Reason})
		}
		if g.GoroutineSeries != nil {
			pg.Series = append(pg.Series, view.Pair{Label: "Goroutine series (" + g.GoroutineSeries.VerdictText + ")", Value: g.GoroutineSeries.Reason})
		}
	}
	for i, m := range c.Bundles {
		b := view.CaptureBundle{Title: fmt.Sprintf("Bundle %d: %s", i+1, rep.Artifacts[min(i, len(rep.Artifacts)-1)].Name),
			Meta: []view.Pair{{Label: "Target", Value: m.Target.String()}, {Label: "Started", Value: page.FormatTime(m.Started)},
				{Label: "Took", Value: m.Finished.Sub(m.Started).Round(time.Millisecond).String()}, {Label: "Written by", Value: m.Tool}}}
		if i < len(c.Captures) && c.Captures[i].Version != "" {
			b.Meta = append(b.Meta, view.Pair{Label: "JVM", Value: c.Captures[i].Version})
		}
		for _, s := range m.Steps {
			name := s.Name
			if s.Snapshot > 0 {
				name = fmt.Sprintf("%d: %s", s.Snapshot, s.Name)
			}
			b.Steps = append(b.Steps, view.CaptureStep{Name: name, Command: s.Command, Started: s.Started.Format("15:04:05.000"),
				Took: s.Finished.Sub(s.Started).Round(time.Millisecond).String(), Size: analyze.FormatBytes(s.Bytes), Error: s.Error, Hint: s.Hint})
		}
		pg.Bundles = append(pg.Bundles, b)
	}
	return pg
}

// JVMFigures are the big numbers of a JVM capture report.
func JVMFigures(j *jvm.NativeReport) []view.JVMFigure {
	if j.Snapshots < 2 {
		r := j.Rows[0]
		figs := []view.JVMFigure{{Label: "resident set (VmRSS)", Value: bytesOrDash(r.RSS), Key: "rss"}}
		if r.TrackedOutsideHeap >= 0 {
			figs = append(figs, view.JVMFigure{Label: "NMT committed outside the heap", Value: analyze.FormatBytes(r.TrackedOutsideHeap), Key: "tracked"})
		}
		if r.HistogramTaken {
			figs = append(figs, view.JVMFigure{Label: "java.util.zip.Inflater alive", Value: analyze.FormatCount(r.Inflaters), Key: "inflaters-alive"})
		}
		return figs
	}
	signed := func(label, key string, v int64) view.JVMFigure {
		return view.JVMFigure{Label: label, Value: analyze.FormatSignedValue(v, "bytes"), Key: key, Grew: v > 0, Shrank: v < 0}
	}
	figs := []view.JVMFigure{signed(fmt.Sprintf("RSS: %s → %s", analyze.FormatBytes(j.BaseRSS), analyze.FormatBytes(j.RSS)), "rss-delta", j.RSSDelta)}
	if j.Complete {
		figs = append(figs, signed("untracked native memory (untracked_native_delta_bytes)", "untracked-native", j.UntrackedNativeDeltaBytes))
	}
	if j.NMT != nil {
		figs = append(figs, signed("NMT committed outside the heap", "tracked-delta", j.TrackedOutsideHeapDelta))
	}
	if j.HeapSource != "" {
		figs = append(figs, signed("Java heap: "+j.HeapSource, "heap-delta", j.HeapDelta))
	}
	figs = append(figs, view.JVMFigure{Label: fmt.Sprintf("java.util.zip.Inflater alive (≈ %s at %s each)", analyze.FormatBytes(j.InflaterBytes), analyze.FormatBytes(j.BytesPerInflater)),
		Value: analyze.FormatCount(j.InflatersAlive), Key: "inflaters-alive"},
		view.JVMFigure{Label: "java.nio.DirectByteBuffer alive", Value: analyze.FormatCount(j.DirectBuffers), Key: "direct-buffers"})
	if j.NMT != nil && (j.Threads > 0 || j.ThreadsDelta != 0) {
		figs = append(figs, view.JVMFigure{Label: fmt.Sprintf("threads (now %s)", analyze.FormatCount(j.Threads)),
			Value: analyze.FormatSignedValue(j.ThreadsDelta, "count"), Key: "threads-delta", Grew: j.ThreadsDelta > 0, Shrank: j.ThreadsDelta < 0})
	}
	return figs
}

// captureFormula says how the untracked growth was computed, with the numbers.
func captureFormula(j *jvm.NativeReport) string {
	if j.Snapshots < 2 || !j.Complete {
		if len(j.Missing) > 0 {
			return "Untracked native memory needs " + strings.Join(j.Missing, "; ") + "."
		}
		return ""
	}
	return fmt.Sprintf("Untracked native memory = ΔRSS − Δ(NMT committed outside the Java heap) − Δ(Java heap, %s) = (%s) − (%s) − (%s) = %s. NMT's committed heap is reserved address space, not resident pages, so it is not what is subtracted.",
		j.HeapSource, analyze.FormatSignedValue(j.RSSDelta, "bytes"), analyze.FormatSignedValue(j.TrackedOutsideHeapDelta, "bytes"),
		analyze.FormatSignedValue(j.HeapDelta, "bytes"), analyze.FormatSignedValue(j.UntrackedNativeDeltaBytes, "bytes"))
}

// captureGoFigures are the big numbers of a Go capture report.
func captureGoFigures(g *capture.GoReport) []view.JVMFigure {
	n := len(g.Snapshots)
	if n == 0 {
		return nil
	}
	last := g.Snapshots[n-1]
	figs := []view.JVMFigure{
		{Label: "heap in use", Value: bytesOrDash(last.HeapInuse), Key: "heap-inuse"},
		{Label: "goroutines", Value: countOrDash(last.Goroutines), Key: "goroutines"},
		{Label: "snapshots", Value: analyze.FormatCount(int64(n)), Key: "snapshots"},
	}
	if n > 1 {
		figs = append(figs, view.JVMFigure{Label: "heap in use since the first", Value: analyze.FormatSignedValue(g.HeapDelta, "bytes"), Key: "heap-delta", Grew: g.HeapDelta > 0},
			view.JVMFigure{Label: "goroutines since the first", Value: analyze.FormatSignedValue(g.GoroutinesDelta, "count"), Key: "goroutines-delta", Grew: g.GoroutinesDelta > 0})
	}
	if g.Leaked >= 0 {
		figs = append(figs, view.JVMFigure{Label: "goroutines proven leaked (goroutineleak)", Value: analyze.FormatCount(g.Leaked), Key: "leaked", Grew: g.Leaked > 0})
	}
	return figs
}

func bytesOrDash(v int64) string {
	if v < 0 {
		return "–"
	}
	return analyze.FormatBytes(v)
}

func countOrDash(v int64) string {
	if v < 0 {
		return "–"
	}
	return analyze.FormatCount(v)
}

// captureJSON is the JSON twin of a capture report: the verdict, the two key
// figures at the top, and the analyses.
type captureJSON struct {
	Kind                      string             `json:"capture_kind"`
	Target                    capture.Target     `json:"target"`
	Verdict                   string             `json:"verdict"`
	Cause                     string             `json:"cause,omitempty"`
	Sentence                  string             `json:"sentence"`
	UntrackedNativeDeltaBytes *int64             `json:"untracked_native_delta_bytes,omitempty"`
	InflatersAlive            *int64             `json:"inflaters_alive,omitempty"`
	JVM                       *jvm.NativeReport  `json:"jvm,omitempty"`
	Go                        *capture.GoReport  `json:"go,omitempty"`
	Bundles                   []capture.Manifest `json:"bundles"`
	Problems                  []string           `json:"problems,omitempty"`
}

// captureJSONOf fills doc.Analysis for capture reports.
func (s *Kind) captureJSONOf(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	c, err := s.loadCaptureReport(r.Context(), rep)
	if err != nil {
		return err
	}
	sum := SummaryOf(c)
	doc.Analysis = captureJSON{Kind: string(c.Kind), Target: c.Target, Verdict: sum.Verdict, Cause: sum.Cause, Sentence: sum.Sentence,
		UntrackedNativeDeltaBytes: sum.UntrackedNativeDeltaBytes, InflatersAlive: sum.InflatersAlive,
		JVM: c.JVM, Go: c.Go, Bundles: c.Bundles, Problems: c.Problems}
	return nil
}

// captureMarkdown writes the ticket summary of a capture report.
func (s *Kind) captureMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	c, err := s.loadCaptureReport(r.Context(), rep)
	if err != nil {
		return err
	}
	snapshot.MarkdownHead(w, r, rep, snapshot.Query{Snapshot: -1}, captureTitle(c))
	fmt.Fprintf(w, "**%s**\n\n", markdown.Escape(c.Verdict.Sentence))
	if j := c.JVM; j != nil {
		if j.Complete {
			fmt.Fprintf(w, "- Untracked native memory (`untracked_native_delta_bytes`): %s (%s bytes)\n", analyze.FormatSignedValue(j.UntrackedNativeDeltaBytes, "bytes"),
				analyze.FormatCount(j.UntrackedNativeDeltaBytes))
			fmt.Fprintf(w, "- %s\n", markdown.Escape(captureFormula(j)))
		} else {
			fmt.Fprintf(w, "- Untracked native memory: not computed (%s)\n", markdown.Escape(strings.Join(j.Missing, "; ")))
		}
		fmt.Fprintf(w, "- `java.util.zip.Inflater` alive (`inflaters_alive`): %s, ≈ %s at %s each; `java.util.zip.Deflater` %s; `java.nio.DirectByteBuffer` %s\n",
			analyze.FormatCount(j.InflatersAlive), analyze.FormatBytes(j.InflaterBytes), analyze.FormatBytes(j.BytesPerInflater),
			analyze.FormatCount(j.DeflatersAlive), analyze.FormatCount(j.DirectBuffers))
		fmt.Fprintln(w)
		fmt.Fprint(w, markdown.TableHead(markdown.Right("#"), markdown.Left("taken"), markdown.Right("RSS"), markdown.Right("NMT outside heap"),
			markdown.Right("Java heap"), markdown.Right("untracked since #1"), markdown.Right("Inflater"), markdown.Right("threads")))
		for i, row := range j.Rows {
			untracked := "–"
			if i > 0 && j.Complete {
				untracked = analyze.FormatSignedValue(row.Untracked, "bytes")
			}
			fmt.Fprint(w, markdown.Row(fmt.Sprint(i+1), page.FormatTime(row.Time), bytesOrDash(row.RSS), bytesOrDash(row.TrackedOutsideHeap),
				bytesOrDash(row.Heap), untracked, analyze.FormatCount(row.Inflaters), countOrDash(row.Threads)))
		}
	}
	if g := c.Go; g != nil {
		fmt.Fprint(w, markdown.TableHead(markdown.Right("#"), markdown.Left("taken"), markdown.Right("heap in use"), markdown.Right("goroutines"), markdown.Right("proven leaked")))
		for i, sn := range g.Snapshots {
			fmt.Fprint(w, markdown.Row(fmt.Sprint(i+1), page.FormatTime(sn.Time), bytesOrDash(sn.HeapInuse), countOrDash(sn.Goroutines), countOrDash(sn.Leaked)))
		}
	}
	if len(c.Problems) > 0 {
		fmt.Fprintln(w, "\nWhat the captures could not take:")
		for _, p := range c.Problems {
			fmt.Fprintf(w, "- %s\n", markdown.Escape(p))
		}
	}
	return nil
}
