package goroutines

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// The verdicts of a goroutine report, as Report.Verdict names them.
const (
	// VerdictCrash is a dump the program printed as it crashed (a panic or a
	// fatal error).
	VerdictCrash = "crash"
	// VerdictLeak is a dump in which the Go runtime proved goroutines leaked.
	VerdictLeak = "leak"
	// VerdictGrew is a comparison whose target has more goroutines than its base.
	VerdictGrew = "grew"
	// VerdictCompared is a comparison that did not grow.
	VerdictCompared = "compared"
	// VerdictDump is one dump of a live program.
	VerdictDump = "dump"
)

// Title names a stack by its most telling function: the first frame (from the
// innermost) of the program or of a module rather than of the standard library;
// else the first outside the runtime's, sync's and the poller's wait machinery;
// else the innermost frame. It is "" for a stack without frames.
func (s *Stack) Title() string {
	if s == nil || len(s.Frames) == 0 {
		return ""
	}
	for _, f := range s.Frames {
		if !f.Elided && !stdlibFunc(f.Func) {
			return f.Func
		}
	}
	for _, f := range s.Frames {
		if !f.Elided && !waitMachinery(f.Func) {
			return f.Func
		}
	}
	return s.Frames[0].Func
}

// stdlibFunc reports a function of the standard library: package main is the
// program's, and a package path whose first element has a dot (github.com/…,
// golang.org/x/…) is a module's.
func stdlibFunc(name string) bool {
	if strings.HasPrefix(name, "main.") {
		return false
	}
	first, _, nested := strings.Cut(name, "/")
	return !nested || !strings.Contains(first, ".")
}

// waitMachinery reports the runtime, sync, syscall and poller frames a blocked
// goroutine sits in.
func waitMachinery(name string) bool {
	for _, p := range []string{"runtime.", "runtime/internal/", "internal/", "sync.", "sync/atomic.", "syscall.", "time.Sleep"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "panic"
}

// Largest returns the group with the most goroutines (in a comparison, in the
// target), the first of equals in the report's order, whether or not it holds
// the goroutine that panicked; nil when no group has a goroutine.
func (r *Report) Largest() *Group {
	var best *Group
	for i := range r.Groups {
		if g := &r.Groups[i]; g.Count > 0 && (best == nil || g.Count > best.Count) {
			best = g
		}
	}
	return best
}

// Panicking returns the group of the goroutine that panicked or threw, nil
// when there is none.
func (r *Report) Panicking() *Group {
	for i := range r.Groups {
		if r.Groups[i].Panicking {
			return &r.Groups[i]
		}
	}
	return nil
}

// decide sets Verdict and Headline from the report's groups, all of them (before
// any cut).
func (r *Report) decide() {
	largest := ""
	if g := r.Largest(); g != nil {
		largest = fmt.Sprintf("the largest group is %s in %s", analyze.Plural(int64(g.Count), "goroutine"), groupTitle(g))
	}
	total := analyze.Plural(int64(r.Total), "goroutine")
	var b strings.Builder
	switch {
	case r.Panic != nil:
		r.Verdict = VerdictCrash
		msg, _, _ := strings.Cut(r.Panic.Message, "\n")
		fmt.Fprintf(&b, "The program crashed (%s: %s) with %s", r.Panic.Kind, msg, total)
		p, l := r.Panicking(), r.Largest()
		switch {
		case p != nil && p == l:
			fmt.Fprintf(&b, "; the goroutine that %s is in the largest group, %s in %s", crashVerb(r.Panic.Kind), analyze.Plural(int64(p.Count), "goroutine"), groupTitle(p))
		case p != nil:
			fmt.Fprintf(&b, "; the goroutine that %s is in %s (a group of %s); %s", crashVerb(r.Panic.Kind), groupTitle(p), analyze.FormatCount(int64(p.Count)), largest)
		case largest != "":
			b.WriteString("; " + largest)
		}
		b.WriteString(".")
	case r.ProvenLeaked || r.Leaked > 0:
		r.Verdict = VerdictLeak
		fmt.Fprintf(&b, "Proven leaked: %s, by the Go runtime (blocked on something no other goroutine can reach, they can never run again)", analyze.Plural(int64(r.Leaked), "goroutine"))
		if !r.ProvenLeaked {
			fmt.Fprintf(&b, ", of %s in the dump", total)
		}
		if largest != "" {
			b.WriteString("; " + largest)
		}
		b.WriteString(".")
	case r.Base != nil:
		r.Verdict = VerdictCompared
		if r.Total > r.Base.Total {
			r.Verdict = VerdictGrew
		}
		grew, gone := 0, 0
		for i := range r.Groups {
			if c := r.Groups[i].Change; c != nil && c.Gone {
				gone++
			} else if c != nil && c.Delta > 0 {
				grew++
			}
		}
		fmt.Fprintf(&b, "Goroutines went from %s to %s (%s): %s new or grown, %s gone",
			analyze.FormatCount(int64(r.Base.Total)), analyze.FormatCount(int64(r.Total)), analyze.FormatSignedValue(int64(r.Total-r.Base.Total), "count"),
			analyze.Plural(int64(grew), "group"), analyze.FormatCount(int64(gone)))
		if largest != "" {
			b.WriteString("; " + largest)
		}
		b.WriteString(".")
	default:
		r.Verdict = VerdictDump
		fmt.Fprintf(&b, "One dump of %s", total)
		if largest != "" {
			b.WriteString("; " + largest)
		}
		b.WriteString(". One dump shows where goroutines wait, not whether they pile up: compare two dumps taken minutes apart.")
	}
	r.Headline = b.String()
}

// groupTitle names a group by its stack's title, or says it has no frames.
func groupTitle(g *Group) string {
	if t := g.Stack.Title(); t != "" {
		return t
	}
	return "a stack without frames"
}

// crashVerb is what the crashing goroutine did.
func crashVerb(kind string) string {
	if kind == FormatPanic {
		return "panicked"
	}
	return "threw"
}
