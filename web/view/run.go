package view

// RunPage is a lab run: live while it runs, its report once it has ended.
type RunPage struct {
	ID, Title string
	Status    string
	// StatusClass is "good", "bad" or "warn" for the badge.
	StatusClass string
	Verdict     string
	Reason      string
	Error       string
	Running     bool
	Step, Steps int64
	StepName    string
	// Phase is the line of a phase without the workload's steps ("write segment
	// 3 of 80"), or "".
	Phase     string
	Pct       int
	Elapsed   string
	Remaining string
	Snapshots int
	Counters  []Counter
	Charts    []Chart
	// Callout explains the heap vs RSS gap of the gzip model; it is folded
	// away with Details.
	Callout string
	// Details are the verdict's further figures, each labelled, folded away
	// below the one-sentence reason.
	Details   []string
	EventsURL string
	CancelURL string
	Links     []Link
	Report    *RunReport
	// Banner is the verdict under the title (status, verdict, reason, counters).
	Banner *Banner
	// CompareWith offers the other runs to compare this one with; nil when there
	// is none.
	CompareWith *CompareWith
}

// Counter is one of a run's counters.
type Counter struct {
	Key, Label, Value string
}

// Chart is a line chart: a static SVG with axes (internal/linechart) that
// static/charts.js replaces with an interactive uPlot chart of the same data.
type Chart struct {
	ID, Title string
	// Unit of the values: "bytes" or "" for plain counts.
	Unit   string
	Series []ChartSeries
	// YMax and XMax are the caption's largest value and x extent.
	YMax, XMax string
	// SVG is the static chart, markup drawn by internal/linechart from numbers
	// (every text in it escaped).
	SVG string
	// Data is the chart's JSON for static/charts.js.
	Data string
	// ImageURL, when set, is the chart's stable URL as an SVG image.
	ImageURL string
}

// ChartSeries is one line of a chart.
type ChartSeries struct {
	// Key names the figure (goroutines, heap_inuse, rss, open, total).
	Key, Name, Class string
}

// RunReport is what a finished run shows below its verdict.
type RunReport struct {
	// GoroutineSeries and HeapSeries analyze the captured snapshots for steady
	// growth.
	GoroutineSeries *SeriesView
	HeapSeries      *SeriesView
	HeapDiff        *DiffTable
	GoroutineDiff   *DiffTable
	// HeapBase and HeapTarget are the first and last heap snapshots' totals
	// in bytes (inuse_space, after a GC), when the run captured two.
	HeapBase, HeapTarget int64
	// HeapTop is the function whose heap grew most between them, and by how
	// many bytes.
	HeapTop     string
	HeapTopGrew int64
	Files       []FileInfo
	// Sections are further analyses (log counts, series suspects) rendered by
	// their own components.
	Sections []Section
	// Log is the run's own log counted with its workload's preset; nil when
	// the run stored none.
	Log *RunLogView
	// JVM is what a jvm run's jcmd outputs say; nil for other runs.
	JVM *RunJVM
}

// Section is a titled block of a report with its own content.
type Section struct {
	ID, Title string
	Lines     []string
}

// RunList is the dashboard's lab block: presets, a custom form and recent runs.
type RunList struct {
	Enabled bool
	Presets []Preset
	Recent  []RunItem
	// Variants etc. offered by the custom form.
	CheckpointVariants, Modes, RecoveryVariants, Codecs []string
	// Scenarios are the checkpoint workload's ways to meet rebalances.
	Scenarios []string
	// Targets are the live endpoints the operator allows captures from.
	Targets []string
}

// Preset is a run that means something, one click away.
type Preset struct{ Name, Description string }

// RunItem is one line of the recent runs list.
type RunItem struct {
	URL, Title, Status, StatusClass, Verdict, Created, ID string
}
