package view

import (
	"strconv"
	"strings"
)

// HeapDumpPage is the report of a JVM heap dump: the leak suspects with their path
// to a GC root, the top of the dominator tree, the class histogram with retained
// sizes, the threads, the packages and the duplicate strings.
type HeapDumpPage struct {
	Header JVMHeader
	// Lazy, when set, is the top of the dominator tree read from the stored
	// index, each object expanding on demand; else Dominators holds the top
	// levels kept in the summary.
	Lazy *HeapDomList
	// Notice, when set, says why the page shows less than it would (the
	// stored index cannot be read).
	Notice     string
	Figures    []JVMFigure
	Suspects   []HeapSuspect
	Dominators []HeapRow
	Histogram  []HeapClass
	Threads    []HeapThread
	Packages   []HeapClass
	Duplicates []HeapDuplicate
	// Group is the dominator tree's grouping by class ("auto", "class" or
	// "none"), Toggles the links that switch it.
	Group   string
	Toggles []Link
	// Views link the pages of the dump's other views (native memory, the
	// tree by class loader, unreachable objects, duplicate classes).
	Views []Link
	// Native, when set, is the native memory section shown on the page (it
	// holds a suspect).
	Native *HeapNative
}

// HeapSuspect is one leak suspect.
type HeapSuspect struct {
	Sentence string
	Share    string
	// Path is the path's first and last steps, PathLength its steps in all.
	Path       []HeapStep
	PathLength int
	// Chain, when set, is the dominators endpoint's URL of the accumulation
	// point's dominator chain (the report has a stored index).
	Chain string
	// PathURL, when set, pages the whole path from the stored index.
	PathURL string
}

// PathSummary says how long the path is and how much of it shows.
func (s HeapSuspect) PathSummary() string {
	if s.PathLength > len(s.Path) {
		return "Shortest path from a GC root (" + count(s.PathLength) + " objects; the first and last " + strconv.Itoa(len(s.Path)) + " shown)"
	}
	return "Shortest path from a GC root (" + strconv.Itoa(len(s.Path)) + " objects)"
}

// GapURL pages the path from the steps left out before step i.
func (s HeapSuspect) GapURL(i int) string {
	if s.PathURL == "" || i == 0 {
		return ""
	}
	return s.PathURL + "?offset=" + strconv.Itoa(s.Path[i-1].Index+1)
}

// count writes n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// GapText says how many steps or objects are left out.
func GapText(n int, what string) string { return "… " + count(n) + " more " + what }

// HeapStep is one object on a path from a GC root.
type HeapStep struct {
	// Via is the GC root for the first step, the field (".consumer", "[3]") after.
	Via      string
	Class    string
	ID       string
	Text     string
	Retained string
	Root     bool
	// Index is the step's position on the path (0 for the root), Gap how many
	// steps are left out before it.
	Index, Gap int
}

// HeapRow is one object of the dominator tree, with the largest objects it
// dominates (two levels below the top).
type HeapRow struct {
	Class, ID, Text, Retained, Shallow, Share string
	RetainedValue                             int64
	Level                                     int
	// Dominated is how many objects it dominates, Children the largest of them.
	Dominated int
	Children  []HeapRow
	// Node is the object's ordinal in the stored index; with Src (the report's
	// dominators endpoint) the row expands lazily instead of showing Children.
	Node string
	Src  string
	// Index is, on a dominator chain, the row's position (0 for the top), Pos
	// the number shown for it, Gap how many objects are left out above it.
	Index, Gap int
	Pos        string
	// Members, when more than 0, makes the row a group of that many objects
	// of one class (ClassIndex, its number in the index) among Node's
	// children, opening onto them.
	Members    int
	ClassIndex string
}

// GroupURL is the page of a group row's objects.
func (d HeapRow) GroupURL() string {
	return d.Src + "?node=" + d.Node + "&class=" + d.ClassIndex
}

// HeapDomList is one page of an object's children in the lazily loaded
// dominator tree: the rows, and a link to the next page when there are more.
type HeapDomList struct {
	// Src is the report's dominators endpoint, Node the parent's ordinal
	// ("root" for the GC roots), Level the rows' depth.
	Src, Node string
	Level     int
	Rows      []HeapRow
	// More is how many children follow these, from NextOffset.
	More, NextOffset int
	// Grouped tells that the rows are the children grouped by class; Query
	// is what the list's URLs keep ("&group=class&class=12").
	Grouped bool
	Query   string
}

// MoreLabel says what the "show more" link adds.
func (l HeapDomList) MoreLabel() string {
	return "Show " + strconv.Itoa(min(l.More, 25)) + " more of " + strconv.Itoa(l.More)
}

// MoreURL is the next page of the list (the fallback without JavaScript).
func (l HeapDomList) MoreURL() string {
	return l.Src + "?node=" + l.Node + "&offset=" + strconv.Itoa(l.NextOffset) + "&level=" + strconv.Itoa(l.Level) + l.Query
}

// HeapDomNodePage is the page of one object of the dominator tree, for browsers
// without JavaScript: its dominator chain from the GC roots and a page of its
// children, each linking to its own page.
type HeapDomNodePage struct {
	Header JVMHeader
	// Chain is the object's dominator chain by its ends: the top and the
	// objects above it, down to it; ChainLength counts the objects on it.
	Chain       []HeapRow
	ChainLength int
	Children    HeapDomList
	// Toggles switch the children's grouping by class; PathURL is the
	// object's shortest strong path from a GC root.
	Toggles []Link
	PathURL string
}

// HeapPathPage is a page of the steps of a suspect's path from a GC root, read
// from the stored index.
type HeapPathPage struct {
	Header JVMHeader
	Steps  []HeapStep
	// Offset is the first step's position, Length the path's steps in all.
	Offset, Length int
	// Prev and Next are the pages before and after ("" for none); FirstURL and
	// Last the first and last pages, First whether this is not the first.
	Prev, Next, FirstURL, Last string
	First                      bool
	// Note says what kind of path it is.
	Note string
}

// HeapClass is one row of the histogram (or of the packages).
type HeapClass struct {
	Name, Instances, Shallow, Retained string
	RetainedValue                      int64
}

// HeapThread is one thread with what it retains and where it stands.
type HeapThread struct {
	Name, Retained, Top string
}

// HeapDuplicate is one string held by several String objects.
type HeapDuplicate struct {
	Text, Copies, Wasted string
}

// HeapDumpAnalysis is the page of a heap dump report whose analysis runs in
// the background or failed: where it stands, followed live by
// static/heapdump.js through the server-sent events at EventsURL.
type HeapDumpAnalysis struct {
	Header JVMHeader
	// Status is "analyzing" or "failed".
	Status string
	// Stage names the running stage; Percent is the whole analysis's progress.
	Stage   string
	Percent int
	// Queue is how many analyses run or wait before this one.
	Queue int
	// Error is why the analysis failed, Code the HTTP status it maps to.
	Error     string
	Code      int
	EventsURL string
	// Refresh reloads the page (the fallback without JavaScript).
	Refresh string
}

// QueueText says how many analyses come before this one.
func (a HeapDumpAnalysis) QueueText() string {
	switch a.Queue {
	case 0:
		return ""
	case 1:
		return "Waiting: 1 analysis runs before this one."
	}
	return "Waiting: " + strconv.Itoa(a.Queue) + " analyses run or wait before this one."
}

// groupOf is the grouping a list's fragments ask for: what its query keeps
// ("" for the default, auto).
func groupOf(l HeapDomList) string {
	for _, q := range []string{"none", "class", "auto"} {
		if strings.Contains(l.Query, "group="+q) {
			return q
		}
	}
	return ""
}
