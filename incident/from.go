package incident

import (
	"fmt"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/analyze/series"
)

// FromSeries judges a series analysis (of heap or goroutine profiles, or of
// JVM class histograms): a suspect is a suspected leak, no steady growth or a
// shrinking total no leak, a short series that moved an inconclusive one. kind
// names the series ("heap series", "goroutine series", "class histogram
// series") and domain what it measures. The number is the total's change.
func FromSeries(kind, title string, domain Domain, rep *series.Report, link string) Evidence {
	e := Evidence{Kind: kind, Title: title, Domain: domain, Sentence: rep.Reason, Link: link,
		Number: rep.Total.Growth, Unit: unitOf(rep.Unit), Signed: true}
	if n := len(rep.Snapshots); n > 0 {
		e.Start, e.End = rep.Snapshots[0].Time, rep.Snapshots[n-1].Time
	}
	change := e.NumberText()
	switch rep.Verdict {
	case series.Leak:
		e.Strength = Suspected
		s := rep.Suspects[0]
		e.Cause = s.Name
		e.Finding = fmt.Sprintf("grew steadily (%s); %s %s", change, s.Name, analyze.FormatSignedValue(s.Growth, e.Unit))
	case series.Inconclusive:
		e.Strength = Inconclusive
		e.Finding = fmt.Sprintf("too few snapshots to decide (%s over %d)", change, len(rep.Snapshots))
	case series.Shrinking:
		e.Strength = Clean
		e.Finding = fmt.Sprintf("shrinking (%s)", change)
	default:
		e.Strength = Clean
		e.Finding = fmt.Sprintf("no steady growth (%s)", change)
	}
	return e
}

// unitOf is a series unit as Evidence has it: bytes, or a count.
func unitOf(u string) string {
	if u == "bytes" {
		return "bytes"
	}
	return "count"
}

// FromGoroutines judges a goroutine dump or profile: goroutines the Go runtime
// proved leaked (a goroutineleak profile, or states marked leaked) are a
// proven leak; any other dump, or a comparison of two, gives no verdict (two
// dumps are no trend), with the number of goroutines or its change.
func FromGoroutines(title string, rep *goroutines.Report, link string) Evidence {
	e := Evidence{Kind: "goroutine dump", Title: title, Domain: Goroutines, Link: link, Unit: "count"}
	if rep.Time != nil {
		e.Start, e.End = *rep.Time, *rep.Time
	}
	switch {
	case rep.ProvenLeaked || rep.Leaked > 0:
		if rep.ProvenLeaked {
			e.Kind = "goroutineleak profile"
		}
		e.Strength, e.Cause, e.Number = Proven, "goroutineleak", int64(rep.Leaked)
		e.Finding = fmt.Sprintf("%s goroutines proven leaked", analyze.FormatCount(e.Number))
		e.Sentence = fmt.Sprintf("The Go runtime proved %s goroutines leaked: blocked on what no live goroutine can reach.", analyze.FormatCount(e.Number))
		if len(rep.Groups) > 0 && rep.Groups[0].Stack != nil {
			if fn := ownFrame(rep.Groups[0].Stack.Funcs()); fn != "" {
				e.Sentence += fmt.Sprintf(" The largest group, %s, is stuck in %s.", analyze.FormatCount(int64(rep.Groups[0].Count)), fn)
			}
		}
	case rep.Base != nil:
		e.Kind = "goroutine dumps"
		e.Number, e.Signed = int64(rep.Total-rep.Base.Total), true
		if rep.Base.Time != nil {
			e.Start = *rep.Base.Time
		}
		e.Finding = fmt.Sprintf("%s goroutines (%s → %s); two dumps are no trend", e.NumberText(),
			analyze.FormatCount(int64(rep.Base.Total)), analyze.FormatCount(int64(rep.Total)))
		e.Sentence = e.Finding + ": take a series of goroutine profiles, or the runtime's goroutineleak profile, for a verdict."
	default:
		e.Number = int64(rep.Total)
		e.Finding = fmt.Sprintf("%s goroutines, no verdict from one dump", analyze.FormatCount(e.Number))
		e.Sentence = e.Finding + ". " + goroutines.LeakProofHint
	}
	return e
}

// ownFrame is the first function of a stack (leaf first) outside the Go
// runtime: where the program itself waits.
func ownFrame(funcs []string) string {
	for _, f := range funcs {
		if !strings.HasPrefix(f, "runtime.") {
			return f
		}
	}
	return ""
}

// FromHeapDump judges a JVM heap dump: a leak suspect (objects of one class
// that a GC root retains, a large share of the heap) is a proven leak, its
// retained size the number; without one, no leak, with the reachable heap.
func FromHeapDump(title string, rep *hprof.Report, link string) Evidence {
	e := Evidence{Kind: "heap dump", Title: title, Domain: Heap, Link: link, Unit: "bytes", Start: rep.Time, End: rep.Time}
	if len(rep.Suspects) == 0 {
		e.Strength, e.Number = Clean, rep.Reachable
		e.Finding = fmt.Sprintf("no leak suspect in %s reachable", analyze.FormatBytes(rep.Reachable))
		e.Sentence = fmt.Sprintf("No class's top-level objects retain a suspect's share of the %s reachable heap.", analyze.FormatBytes(rep.Reachable))
		return e
	}
	s := rep.Suspects[0]
	e.Strength, e.Cause, e.Number = Proven, s.Class, s.Retained
	e.Finding = fmt.Sprintf("%s instances of %s retain %s (%.0f%% of the heap)", analyze.FormatCount(s.Instances), s.Class, analyze.FormatBytes(s.Retained), 100*s.Share)
	e.Sentence = strings.ReplaceAll(s.Sentence, "`", "")
	return e
}

// FromNative judges a JVM's native memory over captures from start to end
// (jvm.AnalyzeNative): growth beyond everything the JVM tracks is a proven
// leak (NMT cannot see it, so nothing but a leak of native memory explains
// it), growth NMT tracks a suspected one, two complete captures without growth
// no leak, and captures that lack a figure inconclusive; one capture gives no
// verdict.
func FromNative(kind, title string, rep *jvm.NativeReport, start, end time.Time, link string) Evidence {
	e := Evidence{Kind: kind, Title: title, Domain: OffHeap, Link: link, Sentence: rep.Verdict.Sentence, Start: start, End: end,
		Unit: "bytes", Signed: true, Cause: rep.Verdict.Cause}
	switch {
	case rep.Verdict.Leak && strings.HasPrefix(rep.Verdict.Cause, "untracked"):
		e.Strength, e.Number = Proven, rep.UntrackedNativeDeltaBytes
		e.Finding = fmt.Sprintf("RSS − heap grew %s beyond what NMT tracks", analyze.FormatBytes(rep.UntrackedNativeDeltaBytes))
		if rep.Verdict.Cause == "untracked-inflaters" {
			e.Finding += fmt.Sprintf("; %s java.util.zip.Inflater alive", analyze.FormatCount(rep.InflatersAlive))
		}
	case rep.Verdict.Leak:
		e.Strength, e.Number = Suspected, rep.TrackedOutsideHeapDelta
		_, what := jvm.TrackedCause(nmtLeader(rep))
		e.Finding = fmt.Sprintf("native memory NMT tracks grew %s, most of it %s", analyze.FormatSignedValue(rep.TrackedOutsideHeapDelta, "bytes"), what)
	case rep.Snapshots < 2:
		e.Strength, e.Number, e.Signed = None, rep.RSS, false
		e.Finding = fmt.Sprintf("one capture, RSS %s: no verdict", analyze.FormatBytes(rep.RSS))
	case !rep.Complete:
		e.Strength, e.Number = Inconclusive, rep.RSSDelta
		e.Finding = fmt.Sprintf("RSS %s; the captures lack a figure to split it", analyze.FormatSignedValue(rep.RSSDelta, "bytes"))
	default:
		e.Strength, e.Number = Clean, rep.UntrackedNativeDeltaBytes
		e.Finding = fmt.Sprintf("no native growth (untracked %s)", analyze.FormatSignedValue(rep.UntrackedNativeDeltaBytes, "bytes"))
	}
	return e
}

// nmtLeader is the NMT category that grew most, "" when none did.
func nmtLeader(rep *jvm.NativeReport) string {
	if rep.NMT == nil || rep.NMT.NativeLeak == nil || len(rep.NMT.NativeLeak.Grew) == 0 {
		return ""
	}
	return rep.NMT.NativeLeak.Grew[0].Name
}

// FromCapture judges capture bundles of one process (capture.Analyze): a
// JVM's by its native memory (FromNative), a Go process's by what its runtime
// proved or what grew steadily over its snapshots.
func FromCapture(title string, rep *capture.Report, link string) Evidence {
	var start, end time.Time
	if n := len(rep.Bundles); n > 0 {
		start, end = rep.Bundles[0].Started, rep.Bundles[n-1].Finished
		if end.IsZero() {
			end = rep.Bundles[n-1].Started
		}
	}
	if rep.JVM != nil {
		return FromNative("JVM captures", title, rep.JVM, start, end, link)
	}
	e := Evidence{Kind: "Go captures", Title: title, Link: link, Sentence: rep.Verdict.Sentence, Start: start, End: end, Cause: rep.Verdict.Cause, Domain: Heap}
	g := rep.Go
	if g == nil {
		e.Finding = "no snapshot"
		return e
	}
	switch rep.Verdict.Cause {
	case "goroutineleak":
		e.Strength, e.Domain, e.Number, e.Unit = Proven, Goroutines, g.Leaked, "count"
		e.Finding = fmt.Sprintf("%s goroutines proven leaked", analyze.FormatCount(g.Leaked))
	case "goroutines":
		e.Strength, e.Domain, e.Number, e.Unit, e.Signed = Suspected, Goroutines, g.GoroutinesDelta, "count", true
		e.Finding = fmt.Sprintf("goroutines grew steadily (%s)", e.NumberText())
	case "heap":
		e.Strength, e.Number, e.Unit, e.Signed = Suspected, g.HeapDelta, "bytes", true
		e.Finding = fmt.Sprintf("the heap grew steadily (%s)", e.NumberText())
	default:
		e.Number, e.Unit, e.Signed = g.HeapDelta, "bytes", true
		switch {
		case len(g.Snapshots) < 3:
			e.Strength = None
			e.Finding = fmt.Sprintf("%d snapshots, heap %s: no verdict", len(g.Snapshots), e.NumberText())
		case g.HeapSeries != nil && g.HeapSeries.Verdict == series.Inconclusive:
			e.Strength = Inconclusive
			e.Finding = fmt.Sprintf("too few snapshots to decide (heap %s)", e.NumberText())
		default:
			e.Strength = Clean
			e.Finding = fmt.Sprintf("no steady growth (heap %s)", e.NumberText())
		}
	}
	return e
}

// FromLog judges a log's start/close pairs (logs.Count with pairs or a
// preset): things started and never closed are a suspected leak, the pair
// with the most still open its number; pairs that all balance are no leak;
// a log whose pairs are not measurable (no line matched), or that has none,
// gives no verdict.
func FromLog(title string, rep *logs.Report, link string) Evidence {
	e := Evidence{Kind: "log", Title: title, Domain: Resources, Link: link, Unit: "count"}
	if n := len(rep.Buckets); n > 0 {
		e.Start, e.End = rep.Buckets[0].Start, rep.Buckets[n-1].Start.Add(time.Duration(rep.BucketMillis)*time.Millisecond)
	}
	var worst *logs.PairReport
	measured := 0
	for i := range rep.Pairs {
		p := &rep.Pairs[i]
		if !p.Measurable {
			continue
		}
		measured++
		if worst == nil || p.Open > worst.Open {
			worst = p
		}
	}
	switch {
	case worst == nil:
		e.Unit = ""
		e.Finding = "no start/close pair measurable: no verdict"
		e.Sentence = fmt.Sprintf("%s lines; no line of a start/close pair, so the log says nothing about what stays open.", analyze.FormatCount(rep.Lines))
	case worst.Open > 0:
		e.Strength, e.Number, e.Cause = Suspected, worst.Open, worst.Name
		e.Finding = fmt.Sprintf("%s %s started and not closed", analyze.FormatCount(worst.Open), worst.Name)
		e.Sentence = fmt.Sprintf("%s started and %s closed: %s still open at the end of the log.",
			analyze.FormatCount(worst.Starts), analyze.FormatCount(worst.Closes), analyze.FormatCount(worst.Open))
	default:
		e.Strength, e.Number = Clean, worst.Starts
		e.Finding = fmt.Sprintf("every start closed (%d of %d pairs measurable)", measured, len(rep.Pairs))
		e.Sentence = fmt.Sprintf("Every one of the %d measurable start/close pairs balances at the end of the log.", measured)
	}
	return e
}

// The verdicts of a lab run, as the lab records them.
const (
	runLeak   = "leak"
	runNoLeak = "no-leak"
)

// FromRun judges a lab run of a reproduction: a run that leaked reproduces the
// suspected bug (suspected: it proves the model leaks, not the production
// process), one that did not argues against it; a run without a verdict
// (running, failed, interrupted) gives none. reason is the lab's sentence.
func FromRun(workload, verdict, reason string, start, end time.Time, link string) Evidence {
	e := Evidence{Kind: "lab run", Title: workload, Domain: Reproduction, Sentence: reason, Start: start, End: end, Link: link}
	switch verdict {
	case runLeak:
		e.Strength, e.Finding = Suspected, "the reproduction leaks"
	case runNoLeak:
		e.Strength, e.Finding = Clean, "the reproduction does not leak"
	default:
		e.Finding = "no verdict yet"
	}
	return e
}
