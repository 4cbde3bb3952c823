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
	Pct         int
	Elapsed     string
	Remaining   string
	Snapshots   int
	Counters    []Counter
	Charts      []Chart
	// Callout is a sentence the run's numbers make worth shouting (the heap vs RSS
	// gap of the gzip model).
	Callout   string
	EventsURL string
	CancelURL string
	Links     []Link
	Report    *RunReport
}

// Counter is one of a run's counters.
type Counter struct {
	Key, Label, Value string
}

// Chart is a line chart of a run's figures against its steps.
type Chart struct {
	ID, Title string
	// Unit of the values: "bytes" or "" for plain counts.
	Unit          string
	Width, Height int
	Series        []ChartSeries
	YMax, XMax    string
}

// ChartSeries is one line of a chart.
type ChartSeries struct {
	// Key names the figure in the run's points (goroutines, heap_inuse, rss, open).
	Key, Name, Class string
	// Points is the SVG polyline, "x,y x,y …".
	Points string
}

// RunReport is what a finished run shows below its verdict.
type RunReport struct {
	// GoroutineSeries and HeapSeries analyze the captured snapshots for steady
	// growth.
	GoroutineSeries *SeriesView
	HeapSeries      *SeriesView
	HeapDiff        *DiffTable
	GoroutineDiff   *DiffTable
	Files           []FileInfo
	// Sections are further analyses (log counts, series suspects) rendered by
	// their own components.
	Sections []Section
	// Log is the run's own log counted with its workload's preset; nil when
	// the run stored none.
	Log *RunLogView
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

// ComparePage shows two runs side by side.
type ComparePage struct {
	Runs [2]RunPage
}
