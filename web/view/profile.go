package view

import "github.com/a-h/templ"

// ProfileReport is the page of a report over one or more profiles: a single
// profile, a diff of two, or a series.
type ProfileReport struct {
	// Verdict opens the page under its title.
	Verdict   *Banner
	ID        string
	Title     string
	Label     string
	Created   string
	Permalink string
	Files     []FileInfo
	// Meta describes the profile shown (single view) as label/value pairs.
	Meta []Pair
	// Modes switch between single, diff and series views over the same files.
	Modes []Link
	// Views switch between the top table and the flame graph.
	Views []Link
	// Types switch between sample types; Value is each one's total.
	Types  []Link
	Filter FilterForm
	Links  []Link // JSON, Markdown, downloads
	// Notices are warnings such as a filter that matched nothing.
	Notices []string
	// Exactly one of the following is set.
	Top    *TopTable
	Flame  *Flame
	Diff   *DiffTable
	Series *SeriesView
	// Extra is the content of a view registered beside top and flame graph (such
	// as the goroutine groups of a goroutine profile); nil otherwise.
	Extra templ.Component
	// Compare offers the other profiles of the same type as a base, for a diff.
	Compare *CompareForm
}

// FileInfo is one input file of a report.
type FileInfo struct {
	Name, Kind, Size, SHA256, Time, Download string
}

// Pair is a label and a value.
type Pair struct{ Label, Value string }

// FilterForm carries pprof-style filters (focus, ignore, hide, show) and the
// parameters to keep when the form is submitted.
type FilterForm struct {
	Action                    string
	Focus, Ignore, Hide, Show string
	Keep                      []Pair // hidden inputs
	Active                    bool
	Clear                     string // URL without filters
}

// TopTable is the flat/cum table of one sample type.
type TopTable struct {
	SampleType string
	Total      string
	// Shown is the filtered total when a filter is active, else "".
	Shown string
	Rows  []TopRow
	// Count and All count the rows shown and the rows there are; ShowAll links to
	// the full table when some are hidden.
	Count, All int
	ShowAll    string
	// Dropped is how many of the rows pprof's default -top would drop (cum below
	// its -nodefraction of 0.5%), DroppedCutoff the cut-off pprof names.
	Dropped       int
	DroppedCutoff string
	// PprofView is true when the table shows only the rows pprof's -top shows;
	// Toggle links to the other view.
	PprofView bool
	Toggle    string
	// Sort is the column the rows are ordered by ("flat", "cum", "name"), and
	// SortURLs the links that order them by each, in that order.
	Sort     string
	SortURLs [3]string
	// Compact leaves out the notes under the table, beside a flame graph.
	Compact bool
}

// TopRow is one function of the top table, formatted.
type TopRow struct {
	Rank int
	Name string
	// Inline is pprof's "(inline)" or "(partial-inline)" mark, or "".
	Inline                             string
	Flat, FlatPct, SumPct, Cum, CumPct string
	// FlatValue and CumValue are the exact values, for tests and copy-paste.
	FlatValue, CumValue int64
	// BarPct is the flat share of the largest row, 0–100, for the inline bar.
	BarPct int
	// Sandwich links to the function's callers and callees, Focus to the
	// profile focused on it (?f=^name$).
	Sandwich, Focus string
}

// DiffTable is a base → target comparison ranked by growth.
type DiffTable struct {
	SampleType                  string
	Base, Target, Change, Ratio string
	BaseName, TargetName        string
	Grew                        bool
	Rows                        []DiffRow
	Count, All                  int
	ShowAll                     string
	Flame                       *Flame
	// Dropped is how many rows pprof's default -top -diff_base drops (cum ≤
	// DroppedCutoff); PprofView tells that they are left out (trim=pprof);
	// Toggle links to the other view ("" shows neither).
	Dropped       int
	DroppedCutoff string
	PprofView     bool
	Toggle        string
}

// DiffRow is one function of a diff, formatted.
type DiffRow struct {
	Rank                                   int
	Name                                   string
	Flat, Cum, BaseFlat, TargetFlat, PctOf string
	FlatValue, CumValue                    int64
	Grew                                   bool
}

// CompareForm lets the user pick a base for the shown profile.
type CompareForm struct {
	Action  string
	Choices []Pair // value = report id, label = description
}
