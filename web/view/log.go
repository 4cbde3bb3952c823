package view

import "strconv"

// LogReportPage is the page of a report over log files: counts per pattern,
// start/close pairs with the keys never closed, counts over time, and the form
// that counts other patterns (a new URL).
type LogReportPage struct {
	// Verdict opens the page under its title.
	Verdict                   *Banner
	ID, Title, Label, Created string
	// Permalink is the page's URL with its parameters.
	Permalink string
	Files     []LogFileRow
	// Links are the JSON twin, the Markdown summary and the CSV of open keys.
	Links []Link
	// Own is false when the URL carries parameters other than the report's
	// own; OwnURL then links back to them.
	Own    bool
	OwnURL string
	// Error is set when the URL's parameters are invalid: the page then shows
	// only the form, with the message.
	Error string
	// Lines and Bytes are the totals over every file.
	Lines, Bytes string
	Notices      []string
	Patterns     []LogPatternRow
	// FileNames head the per-file columns when there are several files.
	FileNames []string
	Pairs     []LogPairView
	// Spans are the times between lines the preset measures.
	Spans    []LogSpanView
	Timeline *LogTimeline
	// OpenCharts draw, per pair, how many were still open at the end of each
	// bucket.
	OpenCharts []Chart
	// NoMatch says in one line that the preset or patterns matched nothing,
	// in place of an empty chart.
	NoMatch string
	// Overview is what the log says without a pattern: levels, lines over
	// time and message templates.
	Overview *LogOverview
	// Trouble opens the page: the lines by level as filter links and the
	// templates of FATAL, ERROR and WARN lines.
	Trouble *LogTrouble
	Form    LogPatternForm
}

// LogTrouble is the section that opens a log report: its lines per level (each
// a link that filters the page to that level) and its errors and warnings,
// template by template, with when each was first and last seen.
type LogTrouble struct {
	Levels []LogLevelRow
	// AllURL shows every level again; Filter is the level the page is
	// filtered to ("" for none).
	AllURL, Filter string
	Rows           []LogTroubleRow
	// Summary counts the lines ("13 ERROR, 1,318 WARN lines in 14 templates");
	// None says in one line that there are none (or none at the filtered
	// level); More names the templates left out.
	Summary, None, More string
}

// LogTroubleRow is one template of FATAL, ERROR or WARN lines.
type LogTroubleRow struct {
	Level, Class       string
	Template, Regexp   string
	Sample             string
	Count              string
	CountValue         int64
	FirstAt, FirstLine string
	LastAt, LastLine   string
	// CountURL counts the template as a pattern (empty when it is too long).
	CountURL string
}

// LogOverview shows every line of a log: how many per level, per level over
// time, and the most frequent message templates.
type LogOverview struct {
	Levels []LogLevelRow
	// Timeline stacks the lines of each level per time bucket.
	Timeline  *LogTimeline
	Templates []LogTemplateRow
	// Distinct is how many distinct templates there are; Other how many
	// lines are in none listed.
	Distinct, Other string
	Notices         []string
	// Filter is the level the templates and the chart are filtered to ("" for
	// none); Shown how many templates of it the table lists.
	Filter string
	Shown  string
}

// LogLevelRow is one level's line count.
type LogLevelRow struct {
	Level, Lines string
	LinesValue   int64
	// Class colours the level everywhere ("lvl-error" for ERROR…).
	Class string
	// URL filters the page to the level (or back to all when Active).
	URL    string
	Active bool
}

// LogTemplateRow is one message template: its text with fields masked, its
// regexp, the lines matching it, and the links that make it a pattern.
type LogTemplateRow struct {
	Rank                 int
	Template, Regexp     string
	Level, Sample, First string
	Count                string
	CountValue           int64
	BarPct               int
	// CountURL is the report with the template's regexp added as a pattern;
	// empty when the regexp is longer than a pattern may be.
	CountURL string
	// PairName is the name the pair buttons give a pair started here.
	PairName string
}

// LogFileRow is one input of a log report.
type LogFileRow struct {
	Name, Size, Lines, Bytes, Compression, SHA256, Download string
}

// LogPatternRow is one pattern's count: the lines matching it, summed over the
// files and per file.
type LogPatternRow struct {
	Pattern string
	Regexp  bool
	Count   string
	// CountValue is the exact number, for tests and scripts (data-count).
	CountValue int64
	PerFile    []string
	// BarPct is the count's share of the largest count, 0–100.
	BarPct int
	// Class colours the pattern in the chart and its legend ("logc1"…).
	Class string
	// Role says which pair the pattern starts or closes, if any.
	Role string
	// Untimed counts matching lines before any timestamp (in no bucket).
	Untimed string
	// None is set when no line matched.
	None bool
}

// LogPairView is one start/close pair.
type LogPairView struct {
	Name                     string
	Start, Close             string
	StartRegexp, CloseRegexp bool
	Starts, Closes, Open     string
	// The exact numbers, for data attributes.
	StartsValue, ClosesValue, OpenValue int64
	// StartW and CloseW are the bar lengths, in the chart's units (0–BarMax).
	StartW, CloseW, BarMax int
	// Measurable is false when neither pattern matched a line; NotMeasurable
	// then says why, in one line, and Open is not shown as a number.
	Measurable    bool
	NotMeasurable string
	// Fallback says why a keyed pair's balance rests on the counts (its key
	// names several things at once).
	Fallback string
	// Keyed is set when the pair has a key regexp.
	Keyed                       bool
	Key                         string
	KeysStarted, KeysClosed     string
	UnclosedCount               string
	UnkeyedStarts, UnkeyedClose string
	// Truncated says the key table hit its limit (counts stay exact).
	Truncated bool
	Keys      []LogOpenKeyRow
	// Count and All count the keys shown and the keys never closed; ShowAll
	// links to all of them; CSV downloads them.
	Count, All   int
	ShowAll, CSV string
}

// LogSpanView is the time from one line to another, or why it could not be
// measured.
type LogSpanView struct {
	Name, From, Until string
	Measurable        bool
	Duration          string
	// Millis is the exact figure, for data attributes.
	Millis int64
	// Start and End are where the two lines are ("file:line time").
	Start, End, EndedBy string
	NotMeasurable       string
}

// LogOpenKeyRow is one key started more often than closed.
type LogOpenKeyRow struct {
	Rank                          int
	Key                           string
	Open, Starts, Closes          string
	OpenValue                     int64
	FirstFile, FirstLine, FirstAt string
	LastFile, LastLine, LastAt    string
}

// LogTimeline is the stacked bar chart of the patterns per time bucket.
type LogTimeline struct {
	// TestID and Label name the chart ("log-timeline", "matching lines over
	// time" when empty).
	TestID, Label string
	Width, Height int
	// BucketWidth is the width of a bar ("1m"); Buckets how many there are.
	BucketWidth string
	Buckets     int
	From, To    string
	YMax        string
	Bars        []LogBar
	Legend      []LogLegend
	// The plot area inside the SVG, and its axes: y ticks (counts) and x
	// ticks (times, as fine as the span needs).
	PlotX, PlotY, PlotW, PlotH string
	YTicks, XTicks             []LogTick
	XLabel, YLabel             string
	// XLabelX, XLabelY and YLabelX, YLabelY place the axis labels.
	XLabelX, XLabelY, YLabelX, YLabelY string
}

// LogTick is one tick of a log chart's axis: where (an SVG coordinate) and
// its label.
type LogTick struct {
	At, Label string
}

// LogBar is one bucket: its stacked rectangles and a tooltip.
type LogBar struct {
	Start string
	Title string
	Total int64
	Rects []LogRect
}

// LogRect is one pattern's part of a bar, in SVG units.
type LogRect struct {
	X, Y, W, H string
	Class      string
}

// LogLegend names a pattern's colour.
type LogLegend struct {
	Label, Class string
}

// LogPatternForm edits a log report's parameters: rows of patterns (literal,
// or RE2 when marked), rows of pairs NAME=START,CLOSE with a key regexp, a
// preset and a bucket width. On a report page it is a GET form that makes the
// new URL; in the upload form its fields travel with the files.
type LogPatternForm struct {
	// Action is the report's URL (GET); empty inside the upload form.
	Action   string
	Upload   bool
	Patterns []LogFormRow
	Pairs    []LogFormRow
	Presets  []LogPresetOption
	Preset   string
	Bucket   string
	// Hidden are parameters the form keeps (n).
	Hidden []Pair
}

// LogFormRow is one row of the form; Key is for pairs only.
type LogFormRow struct {
	Text   string
	Regexp bool
	Key    string
}

// LogPresetOption is one preset the form offers.
type LogPresetOption struct {
	Name, Title, Description string
}

// RunLogView is the run page's section about the run's own log, counted with
// the workload's preset.
type RunLogView struct {
	Name, Size, Download string
	Preset, PresetTitle  string
	Lines                string
	Pairs                []LogPairView
	Patterns             []LogPatternRow
	// Action is the POST that makes a full log report of it.
	Action string
	// Error is why the log could not be counted.
	Error string
}

func (t LogTimeline) testID() string {
	if t.TestID == "" {
		return "log-timeline"
	}
	return t.TestID
}

func (t LogTimeline) label() string {
	if t.Label == "" {
		return "matching lines over time"
	}
	return t.Label
}

// The plot's right and bottom edges and where tick labels sit.
func (t LogTimeline) xEnd() string     { return addFloat(t.PlotX, t.PlotW, 0) }
func (t LogTimeline) yEnd() string     { return addFloat(t.PlotY, t.PlotH, 0) }
func (t LogTimeline) yTickEnd() string { return addFloat(t.PlotY, t.PlotH, 4) }
func (t LogTimeline) yTickX() string   { return addFloat(t.PlotX, "0", -6) }

// addFloat adds two SVG coordinates written as numbers and a constant.
func addFloat(a, b string, c float64) string {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	return strconv.FormatFloat(x+y+c, 'f', -1, 64)
}
