package view

// SeriesView is a series of snapshots analyzed for steady growth: the verdict, a
// line chart of the totals, and the suspects with their stacks one click away.
type SeriesView struct {
	ID           string
	Verdict      string // "leak", "steady", "shrinking", "inconclusive"
	VerdictText  string
	VerdictClass string // "bad", "good", "warn"
	Reason       string
	SampleType   string
	By           string
	Chart        Chart
	Snapshots    []SeriesSnap
	Suspects     []SeriesRow
	Growers      []SeriesRow
	Shrinkers    []SeriesRow
	// Compact leaves out the snapshot list and the growers (inside a run report).
	Compact bool
	// InBanner says the page's verdict banner already shows the verdict and its
	// reason, so the block leaves them out.
	InBanner bool
	// Warnings say why the snapshots may not be comparable (different programs,
	// processes or JVM versions); shown first.
	Warnings []string
}

// SeriesSnap is one snapshot in analysis order, with links that move it.
type SeriesSnap struct {
	Label, Time, Total string
	Up, Down           string
}

// SeriesRow is one suspect (or grower, or shrinker), formatted.
type SeriesRow struct {
	Name                                    string
	First, Last, Growth, GrowthPct          string
	Slope, PerMinute, Steps, R2, Confidence string
	Why                                     string
	Spark                                   string // SVG polyline points in a 100×20 box
	Stacks                                  []SeriesStackRow
	StacksOmitted                           int
	Growing                                 bool
}

// SeriesStackRow is one full stack of a suspect.
type SeriesStackRow struct {
	Frames []string
	Growth string
	Spark  string
	Passed bool
}
