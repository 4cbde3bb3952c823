package view

// ProfileReport is the page of a single profile.
type ProfileReport struct {
	ID        string
	FileName  string
	Label     string
	Kind      string // detected format, e.g. "pprof profile (profile.proto)"
	SHA256    string
	Size      string
	Time      string // "" when the profile does not say
	Duration  string
	Samples   string
	Binary    string
	Created   string
	Types     []Link // switch between sample types; Value is each one's total
	Top       TopTable
	Links     []Link // JSON, Markdown, download
	Notices   []string
	Permalink string
}

// TopTable is the flat/cum table of one sample type.
type TopTable struct {
	SampleType string
	Total      string
	Rows       []TopRow
	// Shown and All count the rows shown and the rows there are; ShowAll links to
	// the full table when some are hidden.
	Shown, All int
	ShowAll    string
}

// TopRow is one function of the top table, formatted.
type TopRow struct {
	Rank                               int
	Name                               string
	Flat, FlatPct, SumPct, Cum, CumPct string
	// FlatValue and CumValue are the exact values, for tests and copy-paste.
	FlatValue, CumValue int64
	// BarPct is the flat share of the largest row, 0–100, for the inline bar.
	BarPct int
}
