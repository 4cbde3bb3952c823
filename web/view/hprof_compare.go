package view

// HeapDumpComparePage compares two or more JVM heap dumps by class: the page of a
// class histogram diff (with the series analyses of three or more dumps), and the
// classes whose retained size grew, which only a dump can tell.
type HeapDumpComparePage struct {
	Diff     JVMHistogramDiffPage
	Retained HeapRetainedTable
}

// HeapRetainedTable lists the classes whose instances retain more in the target
// dump than in the base, most growth first.
type HeapRetainedTable struct {
	Rows []HeapRetainedRow
	// All is how many classes grew; ShowAll links to the full list when Rows is cut.
	All     int
	ShowAll string
}

// HeapRetainedRow is one class of HeapRetainedTable.
type HeapRetainedRow struct {
	Rank                                   int
	Name, Display                          string
	Base, Target, Change, InstancesChange  string
	ChangeValue, InstancesValue, BaseValue int64
	BarPct                                 int
}
