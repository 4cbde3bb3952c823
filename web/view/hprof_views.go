package view

// HeapViewPage is one of a heap dump's views read from its stored index (or,
// for the native memory section, its stored report): a headline, figures, the
// native memory section or a table, and the pages around it.
type HeapViewPage struct {
	Header  JVMHeader
	Intro   string
	Notes   []string
	Figures []JVMFigure
	Native  *HeapNative
	Table   HeapViewTable
	// Back leads to the view this one opened from; Prev and Next are the
	// pages before and after ("" for none).
	Back       Link
	Prev, Next string
}

// HeapViewTable is a view's table.
type HeapViewTable struct {
	TestID  string
	Columns []HeapViewColumn
	Rows    []HeapViewRow
	// Empty says what no rows mean.
	Empty string
}

// HeapViewColumn is a column's label; Name makes it the column of names
// (left-aligned, wrapping, never squeezed).
type HeapViewColumn struct {
	Label string
	Name  bool
}

// HeapViewRow is a row of a view's table; Value is its sort key, for tests.
type HeapViewRow struct {
	Cells []HeapViewCell
	Value int64
}

// HeapViewCell is a cell: its text, a link when URL is set.
type HeapViewCell struct {
	Text, URL string
	Name      bool
}

// HeapNative is the native memory section: the suspects' sentences, then a
// row per kind of holder.
type HeapNative struct {
	Headline  string
	Sentences []string
	Total     string
	Rows      []HeapNativeRow
	Notes     []string
	// URL, on the report page, is the section's own page.
	URL string
}

// HeapNativeRow is one kind of native memory holder: how many, what they
// hold, what each is costed at, and how many are reached strongly, only
// softly or weakly, only from finalizer/cleaner queues, not at all.
type HeapNativeRow struct {
	Holder, Count, Bytes, Each         string
	BytesValue                         int64
	Strong, Weak, Pending, Unreachable string
}
