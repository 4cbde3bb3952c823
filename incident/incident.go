// Package incident decides an incident's one verdict from the verdicts of the
// evidence attached to it, and writes the incident's Markdown summary for its
// ticket. It owns the ranking of evidence (a proven leak before a suspected
// one, before inconclusive evidence, before evidence of no leak), the headline
// built from the strongest piece with its number and link, the contradictions
// between pieces that disagree ("heap series: no steady growth; JVM captures:
// RSS − heap grew 270 MB: look off-heap"), and the Markdown of /i/{slug}.md.
//
// It is pure: it takes the analyses' values (From* turn each kind's report
// into an Evidence) and returns values and text, with no HTTP, storage or
// driver. The store keeps incidents; the web package reads them, analyzes the
// evidence and calls Decide and WriteMarkdown.
package incident

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Strength is how much a piece of evidence says "leak", from None (it gives no
// verdict) to Proven.
type Strength int

// The strengths, weakest first. Ranked evidence is strongest first: Proven,
// Suspected, Inconclusive, Clean, None.
const (
	// None is evidence without a verdict: a single profile, one goroutine dump,
	// a run still going. It is listed, never counted for or against a leak.
	None Strength = iota
	// Clean is a decisive finding of no leak: a series without steady growth,
	// a heap dump without a suspect, captures whose native memory did not grow.
	Clean
	// Inconclusive is evidence that could not decide: too few snapshots for
	// the change they show, captures that lack a figure.
	Inconclusive
	// Suspected is steady growth or things opened and never closed: a leak is
	// likely, not proven (a series' suspect, a log's open pairs, a lab run that
	// reproduces the bug).
	Suspected
	// Proven is a leak the evidence itself proves: the Go runtime's
	// goroutineleak profile, a heap dump's leak suspect (objects a GC root
	// retains), native memory that grew beyond everything the JVM tracks.
	Proven
)

// String is the strength as a verdict reads: "leak proven", "leak suspected",
// "inconclusive", "no leak", "no verdict".
func (s Strength) String() string {
	switch s {
	case Proven:
		return "leak proven"
	case Suspected:
		return "leak suspected"
	case Inconclusive:
		return "inconclusive"
	case Clean:
		return "no leak"
	}
	return "no verdict"
}

// Domain is the part of a process a piece of evidence measures.
type Domain string

// The domains.
const (
	// Heap is the garbage-collected heap: Go's or the JVM's.
	Heap Domain = "heap"
	// OffHeap is memory outside the heap: the resident set beyond the heap,
	// native memory tracked by NMT or not.
	OffHeap Domain = "off-heap"
	// Goroutines are a Go process's goroutines or a JVM's threads.
	Goroutines Domain = "goroutines"
	// Resources are things a program opens and closes, as a log's pairs count
	// them (consumers, iterators, connections).
	Resources Domain = "resources"
	// Reproduction is a lab run of a suspected bug.
	Reproduction Domain = "reproduction"
)

// Evidence is one attached report or run, as its analysis judged it.
type Evidence struct {
	// Kind names the kind of evidence as a reader knows it: "heap series",
	// "goroutineleak profile", "heap dump", "JVM captures", "log", "lab run".
	Kind string
	// Title names this piece: the file uploaded, the run's workload.
	Title    string
	Strength Strength
	Domain   Domain
	// Cause is the analysis's name for what leaks ("goroutineleak",
	// "untracked-inflaters", a suspect's class), when it names one.
	Cause string
	// Finding says in a few words what the evidence found, with its number:
	// "7 goroutines proven leaked", "no steady growth (+1.2 MB)".
	Finding string
	// Sentence is the analysis's own one-sentence verdict, with its numbers.
	Sentence string
	// Number is the headline number, in Unit ("bytes", "count" or ""); Signed
	// marks a change (shown with its sign).
	Number int64
	Unit   string
	Signed bool
	// Start and End are the span of time the evidence covers (equal for one
	// snapshot; zero when unknown).
	Start, End time.Time
	// Link is the evidence's page: a path on the server ("/r/ID", "/runs/ID")
	// or an absolute URL.
	Link string
}

// NumberText is the headline number as shown, in its unit: "+270.0 MB",
// "7"; "" when the evidence has none.
func (e Evidence) NumberText() string {
	if e.Unit == "" {
		return ""
	}
	if e.Signed {
		return analyze.FormatSignedValue(e.Number, e.Unit)
	}
	return analyze.FormatValue(e.Number, e.Unit)
}

// Timed reports whether the evidence has a time.
func (e Evidence) Timed() bool { return !e.Start.IsZero() }

// leak reports whether the evidence says leak (proven or suspected).
func (e Evidence) leak() bool { return e.Strength >= Suspected }

// Rank returns the evidence strongest first: by Strength; within one, bytes
// before counts and the larger number (by magnitude) first; then the earlier
// start, then the link, so that the order never depends on the input's. It
// does not change ev.
func Rank(ev []Evidence) []Evidence {
	out := slices.Clone(ev)
	slices.SortStableFunc(out, compareEvidence)
	return out
}

func compareEvidence(a, b Evidence) int {
	if c := cmp.Compare(b.Strength, a.Strength); c != 0 {
		return c
	}
	if c := cmp.Compare(unitRank(a.Unit), unitRank(b.Unit)); c != 0 {
		return c
	}
	if c := cmp.Compare(abs(b.Number), abs(a.Number)); c != 0 {
		return c
	}
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Link, b.Link); c != 0 {
		return c
	}
	return cmp.Compare(a.Kind+a.Title, b.Kind+b.Title)
}

// unitRank orders units: bytes, then counts, then none.
func unitRank(u string) int {
	switch u {
	case "bytes":
		return 0
	case "":
		return 2
	}
	return 1
}

func abs(v int64) int64 {
	if v < 0 {
		if v == -1<<63 {
			return 1<<63 - 1
		}
		return -v
	}
	return v
}

// MaxContradictions is the most contradictions a Verdict lists.
const MaxContradictions = 10

// Contradiction is a piece of evidence that says leak and one that says no
// leak, with where to look.
type Contradiction struct {
	// Leak and Clean index the two pieces in Verdict.Ranked.
	Leak, Clean int
	// Text says it: "heap series: no steady growth (+1.2 MB); JVM captures:
	// RSS grew 270.0 MB beyond what NMT tracks: look off-heap".
	Text string
}

// Verdict is an incident's one verdict.
type Verdict struct {
	// Strength is the strongest evidence's (None without evidence).
	Strength Strength
	// Headline is one sentence: the strength, the strongest evidence's kind
	// and finding with its number, and how many others agree.
	Headline string
	// Lead indexes the strongest evidence in Ranked, -1 without evidence; Link
	// is its link and Number its number as shown.
	Lead   int
	Link   string
	Number string
	// Ranked is the evidence, strongest first (Rank).
	Ranked []Evidence
	// Counts counts the evidence by strength.
	Counts map[Strength]int
	// Contradictions are the pairs of evidence that disagree, at most
	// MaxContradictions, the strongest leak first.
	Contradictions []Contradiction
}

// Decide ranks the evidence and builds the incident's verdict: the headline
// from the strongest piece, and the contradictions between the pieces that say
// leak and those that say no leak.
func Decide(ev []Evidence) Verdict {
	v := Verdict{Lead: -1, Ranked: Rank(ev), Counts: map[Strength]int{}}
	for _, e := range v.Ranked {
		v.Counts[e.Strength]++
	}
	if len(v.Ranked) == 0 {
		v.Headline = "No evidence attached yet: attach reports or lab runs to the incident."
		return v
	}
	lead := v.Ranked[0]
	v.Strength, v.Lead, v.Link, v.Number = lead.Strength, 0, lead.Link, lead.NumberText()
	v.Headline = headline(lead, v.Counts)
	v.Contradictions = contradictions(v.Ranked)
	return v
}

// headline is the verdict's sentence.
func headline(lead Evidence, counts map[Strength]int) string {
	s := capitalize(lead.Strength.String()) + ": " + lead.Kind
	if lead.Title != "" {
		s += " " + lead.Title
	}
	s += " — " + lead.Finding + "."
	switch lead.Strength {
	case Proven, Suspected:
		if more := counts[Proven] + counts[Suspected] - 1; more > 0 {
			s += fmt.Sprintf(" %s point%s at a leak", pieces(more), plural(more == 1, "s", ""))
			if n := counts[Clean]; n > 0 {
				s += fmt.Sprintf("; %s find%s none", pieces(n), plural(n == 1, "s", ""))
			}
			s += "."
		} else if n := counts[Clean]; n > 0 {
			s += fmt.Sprintf(" %s find%s no leak.", pieces(n), plural(n == 1, "s", ""))
		}
	case Inconclusive:
		s += " Nothing attached decides: take more snapshots or captures."
	case Clean:
		if n := counts[Clean]; n > 1 {
			s += fmt.Sprintf(" All %d pieces of evidence with a verdict find no leak.", n)
		}
	case None:
		s += " No evidence attached gives a verdict: attach a series, captures, a heap dump or a log."
	}
	return s
}

func pieces(n int) string {
	if n == 1 {
		return "1 other piece of evidence"
	}
	return fmt.Sprintf("%d other pieces of evidence", n)
}

func plural(one bool, a, b string) string {
	if one {
		return a
	}
	return b
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// hints say where to look when evidence of one domain finds no leak and
// evidence of another finds one, by (clean, leak) domains.
var hints = map[[2]Domain]string{
	{Heap, OffHeap}:            "look off-heap",
	{Heap, Goroutines}:         "look at the goroutines",
	{Heap, Resources}:          "look at what is opened and never closed",
	{OffHeap, Heap}:            "look at the heap",
	{OffHeap, Goroutines}:      "look at the goroutines",
	{Goroutines, Heap}:         "look at the heap",
	{Goroutines, OffHeap}:      "look off-heap",
	{Resources, Heap}:          "the leak is not in what the log's pairs count: look at the heap",
	{Resources, OffHeap}:       "the leak is not in what the log's pairs count: look off-heap",
	{Resources, Goroutines}:    "the leak is not in what the log's pairs count: look at the goroutines",
	{Reproduction, Heap}:       "the lab run did not reproduce it: the leak is elsewhere, or the run differs from production",
	{Reproduction, OffHeap}:    "the lab run did not reproduce it: the leak is elsewhere, or the run differs from production",
	{Reproduction, Goroutines}: "the lab run did not reproduce it: the leak is elsewhere, or the run differs from production",
	{Reproduction, Resources}:  "the lab run did not reproduce it: the leak is elsewhere, or the run differs from production",
	{Heap, Reproduction}:       "the lab run reproduces a leak the heap does not show: compare the run's workload with production's",
	{OffHeap, Reproduction}:    "the lab run reproduces a leak this evidence does not show: compare the run's workload with production's",
}

// maxPaired is how many pieces on each side contradictions compares: the
// strongest leaks against the largest findings of no leak, so that an incident
// of thousands of pieces is compared in bounded time.
const maxPaired = 200

// contradictions pairs the pieces that say leak with those that say no leak,
// strongest leak first, and words each pair that has something to say: the
// same domain disagreeing, or a hint where to look.
func contradictions(ranked []Evidence) []Contradiction {
	var leaks, cleans []int
	for i, e := range ranked {
		switch {
		case e.leak() && len(leaks) < maxPaired:
			leaks = append(leaks, i)
		case e.Strength == Clean && len(cleans) < maxPaired:
			cleans = append(cleans, i)
		}
	}
	var out []Contradiction
	seen := map[string]bool{}
	for _, i := range leaks {
		l := ranked[i]
		for _, j := range cleans {
			c := ranked[j]
			hint, ok := hints[[2]Domain{c.Domain, l.Domain}]
			if c.Domain == l.Domain {
				hint, ok = "they disagree about the "+string(l.Domain)+": compare when and where each was taken", true
			}
			if !ok {
				continue
			}
			text := fmt.Sprintf("%s: %s; %s: %s: %s", c.Kind, c.Finding, l.Kind, l.Finding, hint)
			if seen[text] {
				continue // the same pair of findings from other pieces says nothing new
			}
			seen[text] = true
			out = append(out, Contradiction{Leak: i, Clean: j, Text: text})
			if len(out) == MaxContradictions {
				return out
			}
		}
	}
	return out
}
