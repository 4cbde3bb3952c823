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

// JVMHistogramPage is the page of one JVM class histogram.
type JVMHistogramPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// TotalCheck says whether the rows add up to the file's own Total line; TotalOK
	// marks the good case.
	TotalCheck string
	TotalOK    bool
	// Orders switch the ranking between bytes and instances.
	Orders    []Link
	Table     JVMClassTable
	Snapshots *JVMSnapshotTable
}

// JVMClassTable is a histogram's classes, ranked.
type JVMClassTable struct {
	// By is what the table is ranked by: "bytes" or "instances".
	By   string
	Rows []JVMClassRow
	// Count and All count the rows shown and the classes there are; ShowAll links
	// to the whole table when some are hidden.
	Count, All int
	ShowAll    string
}

// JVMClassRow is one class of a histogram, formatted.
type JVMClassRow struct {
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

// JVMHistogramDiffPage is the page of two or more histograms of one JVM: what grew
// between the base and the target, and the application classes that multiplied.
type JVMHistogramDiffPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Suspects are the application classes with more instances, most first.
	Suspects    JVMChangeTable
	ByBytes     JVMChangeTable
	ByInstances JVMChangeTable
	Snapshots   *JVMSnapshotTable
	// Series are the series analyses of three or more histograms, by instances
	// and by bytes.
	Series []SeriesView
}

// JVMChangeTable is a ranked list of class changes.
type JVMChangeTable struct {
	// ID is the table's data-testid; Title its heading; Note explains it.
	ID, Title, Note string
	// By is the measure the table is ranked by and its bars show: "bytes" or
	// "instances".
	By         string
	Rows       []JVMChangeRow
	Count, All int
	ShowAll    string
}

// JVMChangeRow is how one class changed, formatted.
type JVMChangeRow struct {
	Rank                                int
	Name, Display                       string
	Bytes, Instances                    string // target − base, signed
	BaseBytes, TargetBytes              string
	BaseInstances, TargetInstances      string
	BytesValue, InstancesValue          int64
	BytesGrew, InstancesGrew, New, Gone bool
	BarPct                              int
}

// JVMSnapshotTable lists the snapshots of a report (histograms, dumps, native
// memory reports) in analysis order, with the base and target marked.
type JVMSnapshotTable struct {
	// What names the snapshots ("histograms").
	What string
	Rows []JVMSnapshotRow
	// Totals are the column headings of Values.
	Totals []string
}

// JVMSnapshotRow is one snapshot.
type JVMSnapshotRow struct {
	Number       int
	File, Line   string
	Time         string
	Values       []string
	Base, Target bool
	// View links to this snapshot alone; Current marks the one shown.
	View    string
	Current bool
}

// JVMThreadsPage is the page of a JVM thread dump, or of the change between two.
type JVMThreadsPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Deadlocks are the deadlocks the JVM reported, shown first.
	Deadlocks []JVMDeadlockView
	// Diff is what changed: between the first and the last dump of a file, or
	// between two uploaded dumps.
	Diff *JVMThreadDiffView
	// States counts the threads per state, most first.
	States []JVMBar
	// Names counts the threads per folded name, most first.
	Names      []JVMBar
	NamesAll   int
	Groups     []JVMThreadGroupView
	Count, All int
	ShowAll    string
	// Histograms are the class histograms printed with the dump.
	Histograms []JVMEmbeddedHistogram
	Snapshots  *JVMSnapshotTable
}

// JVMBar is a label with a count and a bar scaled to the largest.
type JVMBar struct {
	Label  string
	Count  string
	Value  int
	BarPct int
	Change string // for name changes: "+165"
	Grew   bool
}

// JVMDeadlockView is one deadlock cycle.
type JVMDeadlockView struct {
	Threads []JVMDeadlockThreadView
}

// JVMDeadlockThreadView is one thread of a deadlock: who waits for what, held by
// whom.
type JVMDeadlockThreadView struct {
	Name, Waiting, HeldBy string
}

// JVMThreadGroupView is one group of threads with the same state and stack.
type JVMThreadGroupView struct {
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

// JVMThreadDiffView is what changed between two thread dumps.
type JVMThreadDiffView struct {
	Headline                    string
	BaseName, TargetName        string
	BaseTotal, TargetTotal      string
	Change                      string
	Grew                        bool
	New, Grown, Shrunk          []JVMThreadGroupView
	NewAll, GrownAll, ShrunkAll int
	Names                       []JVMBar
	ShowAll                     string
}

// JVMEmbeddedHistogram is a class histogram found inside a thread dump file.
type JVMEmbeddedHistogram struct {
	Title      string
	Headline   string
	TotalCheck string
	TotalOK    bool
	Table      JVMClassTable
}

// JVMNMTPage is the page of a native memory tracking report, or of the change
// between two.
type JVMNMTPage struct {
	Header  JVMHeader
	Figures []JVMFigure
	// Leak is the callout of growth NMT tracks outside the heap, named by its
	// category; nil when the numbers do not show it.
	Leak  *JVMNativeLeakView
	Chart JVMNMTChart
	// Categories is the table of the (target) report.
	Categories []JVMNMTRow
	// HasChange says whether the rows carry a change column.
	HasChange bool
	// Changes are the categories that changed, most growth first.
	Changes   []JVMNMTChangeRow
	Snapshots *JVMSnapshotTable
}

// JVMNativeLeakView is growth that NMT tracks outside the heap while the heap
// did not grow, with its cause (thread-stacks, metaspace, direct-buffers…).
type JVMNativeLeakView struct {
	Cause, Message string
}

// JVMNMTChart is a horizontal bar chart of the categories, drawn as SVG with
// attributes only (no inline styles).
type JVMNMTChart struct {
	Width, Height int
	Bars          []JVMNMTBar
	// Diff draws the base's committed bar under each category.
	Diff bool
	// Legend names the bars.
	Legend []Pair // label, fill colour
}

// JVMNMTBar is one category of the chart; coordinates are SVG units, formatted.
type JVMNMTBar struct {
	Name                         string
	Y, TextY, BaseY              string
	ReservedW, CommittedW, BaseW string
	ValueX                       string
	Value                        string
	Title                        string
	CommittedFill                string
}

// JVMNMTRow is one category of a native memory report.
type JVMNMTRow struct {
	Name                       string
	Committed, Reserved, Share string
	Change                     string
	Grew                       bool
	Malloc, Mmap, Count        string
	CommittedValue             int64
}

// JVMNMTChangeRow is how one category changed.
type JVMNMTChangeRow struct {
	Name                                  string
	BaseCommitted, Committed, Change      string
	BaseReserved, Reserved, ReservedDelta string
	Malloc                                string
	Grew                                  bool
	ChangeValue                           int64
}
