package view

// ComparePage shows two runs side by side: a table of their differences first,
// then each chart of the two runs on one shared y scale, then each run's report.
type ComparePage struct {
	// Headline is the comparison in one line, from the runs' numbers ("pr1674
	// closes 1,741 of 1,741; leaky leaves 1,727 open").
	Headline string
	// Bug is the upstream bug both runs reproduce ("SAMZA-2785"), or "".
	Bug  string
	Runs [2]RunPage
	// Key are the figures shown first, side by side; Diffs are all of them.
	Key []CompareRow
	// Links are the comparison's JSON and Markdown twins.
	Links []Link
	// Diffs are the figures that tell the runs apart, first.
	Diffs []CompareRow
	// Charts pairs the runs' charts by id, each pair on one y scale.
	Charts []ChartPair
}

// CompareRow is one figure of both runs and how the second differs.
type CompareRow struct {
	Key, Label string
	Values     [2]string
	// Change is the second run's value minus the first's, or "".
	Change string
	// Differs marks a row whose values differ.
	Differs bool
}

// ChartPair is one chart of both runs.
type ChartPair struct {
	ID, Title string
	Charts    [2]Chart
}

// CompareWith is the "Compare with…" form of a run page: the run and the other
// runs it can be compared with.
type CompareWith struct {
	RunID string
	// Workload names the runs offered ("SAMZA-2785 checkpoint"): only runs of
	// the same workload compare.
	Workload string
	Choices  []Pair // Value is the other run's id, Label its title
}
