package view

// JVMHeader is what every JVM report page starts with: its title, the uploaded
// files, the permalink and the JSON and Markdown twins, the verdict in one sentence
// and the parser's warnings.
type JVMHeader struct {
	Title     string
	Label     string
	Created   string
	Permalink string
	Files     []FileInfo
	Links     []Link
	// Meta describes what is shown (the dump's JVM, when it was taken…).
	Meta []Pair
	// Headline is the verdict in one sentence; Alarm colours it as bad news.
	Headline string
	Alarm    bool
	// Grew and Shrank colour a comparison's headline without an alarm: red
	// for growth, green for shrinking; neither leaves it grey (no verdict).
	Grew, Shrank bool
	// Notices are warnings: a Total line that does not add up, a cut file.
	Notices []string
	// Tabs switch between views of the same files (one snapshot, the diff…).
	Tabs []Link
}

// JVMFigure is one big number of a page's totals row.
type JVMFigure struct {
	Label, Value string
	// Key is the figure's data-testid suffix ("total-bytes").
	Key string
	// Grew and Shrank colour a change.
	Grew, Shrank bool
}

// JavaHistogramPage is the page of one JVM class histogram.
type JavaHistogramPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// TotalCheck says whether the rows add up to the file's own Total line; TotalOK
	// marks the good case.
	TotalCheck string
	TotalOK    bool
	// Orders switch the ranking between bytes and instances.
	Orders    []Link
	Table     JavaClassTable
	Snapshots *JavaSnapshotTable
}

// JavaClassTable is a histogram's classes, ranked.
type JavaClassTable struct {
	// By is what the table is ranked by: "bytes" or "instances".
	By   string
	Rows []JavaClassRow
	// Count and All count the rows shown and the classes there are; ShowAll links
	// to the whole table when some are hidden.
	Count, All int
	ShowAll    string
}

// JavaClassRow is one class of a histogram, formatted.
type JavaClassRow struct {
	Rank int
	// Name is the class as the JVM prints it; Display its Java spelling when that
	// differs ("byte[]" for "[B"), else "".
	Name, Display, Module      string
	Instances, Bytes           string
	InstancesShare, BytesShare string
	InstancesValue, BytesValue int64
	// BarPct is the row's share of the largest row in the ranked measure, 0–100.
	BarPct int
	// App marks a class of the application rather than of the JDK.
	App bool
}

// JavaHistogramDiffPage is the page of two or more histograms of one JVM: what grew
// between the base and the target, and the application classes that multiplied.
type JavaHistogramDiffPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Suspects are the application classes with more instances, most first.
	Suspects    JavaChangeTable
	ByBytes     JavaChangeTable
	ByInstances JavaChangeTable
	Snapshots   *JavaSnapshotTable
	// Series are the series analyses of three or more histograms, by instances
	// and by bytes.
	Series []SeriesView
}

// JavaChangeTable is a ranked list of class changes.
type JavaChangeTable struct {
	// ID is the table's data-testid; Title its heading; Note explains it.
	ID, Title, Note string
	// By is the measure the table is ranked by and its bars show: "bytes" or
	// "instances".
	By         string
	Rows       []JavaChangeRow
	Count, All int
	ShowAll    string
}

// JavaChangeRow is how one class changed, formatted.
type JavaChangeRow struct {
	Rank                                int
	Name, Display                       string
	Bytes, Instances                    string // target − base, signed
	BaseBytes, TargetBytes              string
	BaseInstances, TargetInstances      string
	BytesValue, InstancesValue          int64
	BytesGrew, InstancesGrew, New, Gone bool
	BarPct                              int
}

// JavaSnapshotTable lists the snapshots of a report (histograms, dumps, native
// memory reports) in analysis order, with the base and target marked.
type JavaSnapshotTable struct {
	// What names the snapshots ("histograms").
	What string
	Rows []JavaSnapshotRow
	// Totals are the column headings of Values.
	Totals []string
}

// JavaSnapshotRow is one snapshot.
type JavaSnapshotRow struct {
	Number       int
	File, Line   string
	Time         string
	Values       []string
	Base, Target bool
	// View links to this snapshot alone; Current marks the one shown.
	View    string
	Current bool
}

// JavaThreadsPage is the page of a JVM thread dump, or of the change between two.
type JavaThreadsPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Deadlocks are the deadlocks the JVM reported, shown first.
	Deadlocks []JavaDeadlockView
	// Diff is what changed: between the first and the last dump of a file, or
	// between two uploaded dumps.
	Diff *JavaThreadDiffView
	// States counts the threads per state, most first.
	States []JavaBar
	// Names counts the threads per folded name, most first.
	Names      []JavaBar
	NamesAll   int
	Groups     []JavaThreadGroupView
	Count, All int
	ShowAll    string
	// Histograms are the class histograms printed with the dump.
	Histograms []JavaEmbeddedHistogram
	Snapshots  *JavaSnapshotTable
}

// JavaBar is a label with a count and a bar scaled to the largest.
type JavaBar struct {
	Label  string
	Count  string
	Value  int
	BarPct int
	Change string // for name changes: "+165"
	Grew   bool
}

// JavaDeadlockView is one deadlock cycle.
type JavaDeadlockView struct {
	Threads []JavaDeadlockThreadView
}

// JavaDeadlockThreadView is one thread of a deadlock: who waits for what, held by
// whom.
type JavaDeadlockThreadView struct {
	Name, Waiting, HeldBy string
}

// JavaThreadGroupView is one group of threads with the same state and stack.
type JavaThreadGroupView struct {
	Count int
	// Change is the growth for a diff ("+165, was 3"), else "".
	Change     string
	State      string
	Daemon     string
	Deadlocked bool
	Names      []Pair // pattern, count
	Locks      []string
	TopFrame   string
	Stack      []string
}

// JavaThreadDiffView is what changed between two thread dumps.
type JavaThreadDiffView struct {
	Headline                    string
	BaseName, TargetName        string
	BaseTotal, TargetTotal      string
	Change                      string
	Grew                        bool
	New, Grown, Shrunk          []JavaThreadGroupView
	NewAll, GrownAll, ShrunkAll int
	Names                       []JavaBar
	ShowAll                     string
}

// JavaEmbeddedHistogram is a class histogram found inside a thread dump file.
type JavaEmbeddedHistogram struct {
	Title      string
	Headline   string
	TotalCheck string
	TotalOK    bool
	Table      JavaClassTable
}

// JavaNMTPage is the page of a native memory tracking report, or of the change
// between two.
type JavaNMTPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Leak is the callout of growth NMT tracks outside the heap, named by its
	// category; nil when the numbers do not show it.
	Leak  *JavaNativeLeakView
	Chart JavaNMTChart
	// Categories is the table of the (target) report.
	Categories []JavaNMTRow
	// HasChange says whether the rows carry a change column.
	HasChange bool
	// Changes are the categories that changed, most growth first.
	Changes   []JavaNMTChangeRow
	Snapshots *JavaSnapshotTable
}

// JavaNativeLeakView is growth that NMT tracks outside the heap while the heap
// did not grow, with its cause (thread-stacks, metaspace, direct-buffers…).
type JavaNativeLeakView struct {
	Cause, Message string
}

// JavaNMTChart is a horizontal bar chart of the categories, drawn as SVG with
// attributes only (no inline styles).
type JavaNMTChart struct {
	Width, Height int
	Bars          []JavaNMTBar
	// Diff draws the base's committed bar under each category.
	Diff bool
	// Legend names the bars.
	Legend []Pair // label, fill colour
}

// JavaNMTBar is one category of the chart; coordinates are SVG units, formatted.
type JavaNMTBar struct {
	Name                         string
	Y, TextY, BaseY              string
	ReservedW, CommittedW, BaseW string
	ValueX                       string
	Value                        string
	Title                        string
	CommittedFill                string
}

// JavaNMTRow is one category of a native memory report.
type JavaNMTRow struct {
	Name                       string
	Committed, Reserved, Share string
	Change                     string
	Grew                       bool
	Malloc, Mmap, Count        string
	CommittedValue             int64
}

// JavaNMTChangeRow is how one category changed.
type JavaNMTChangeRow struct {
	Name                                  string
	BaseCommitted, Committed, Change      string
	BaseReserved, Reserved, ReservedDelta string
	Malloc                                string
	Grew                                  bool
	ChangeValue                           int64
}
