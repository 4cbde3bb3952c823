package view

import "strconv"

// HeapDumpPage is the report of a JVM heap dump: the leak suspects with their path
// to a GC root, the top of the dominator tree, the class histogram with retained
// sizes, the threads, the packages and the duplicate strings.
type HeapDumpPage struct {
	Header     JVMHeader
	Figures    []JVMFigure
	Suspects   []HeapSuspect
	Dominators []HeapRow
	Histogram  []HeapClass
	Threads    []HeapThread
	Packages   []HeapClass
	Duplicates []HeapDuplicate
}

// HeapSuspect is one leak suspect.
type HeapSuspect struct {
	Sentence string
	Share    string
	Path     []HeapStep
}

// HeapStep is one object on a path from a GC root.
type HeapStep struct {
	// Via is the GC root for the first step, the field (".consumer", "[3]") after.
	Via      string
	Class    string
	ID       string
	Text     string
	Retained string
	Root     bool
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
