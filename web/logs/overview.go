package logs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// logTemplatePageRows is how many templates a log report's page lists (the
// JSON has up to logs.TemplateRows).
const logTemplatePageRows = 30

// logLevelClasses colours the levels, in the order of logs.LevelNames, with
// the chart's classes: FATAL magenta, ERROR red, WARN amber, INFO blue, DEBUG
// green, TRACE teal, no level grey.
var logLevelClasses = [logs.NumLevels]string{"logc7", "logc2", "logc4", "logc1", "logc3", "logc6", "logc8"}

// logOverviewView builds the page's overview: levels, lines by level over
// time, and the most frequent templates with the links that count them.
func logOverviewView(lr *logs.Report, q logQuery, path string) *view.LogOverview {
	o := lr.Overview
	if o == nil {
		return nil
	}
	v := &view.LogOverview{Distinct: analyze.FormatCount(int64(o.Distinct)), Other: analyze.FormatCount(o.OtherLines)}
	for i, l := range o.Levels {
		if l.Lines == 0 {
			continue
		}
		v.Levels = append(v.Levels, view.LogLevelRow{Level: l.Level, Lines: analyze.FormatCount(l.Lines), LinesValue: l.Lines, Class: logLevelClasses[i]})
	}
	if logTimesUsable(lr) {
		v.Timeline = logLevelTimeline(lr)
	}
	var largest int64
	for _, t := range o.Templates {
		largest = max(largest, t.Count)
	}
	for i, t := range o.Templates {
		if i == logTemplatePageRows {
			break
		}
		row := view.LogTemplateRow{Rank: i + 1, Template: page.Display(t.Template), Regexp: page.Display(t.Regexp), Level: t.Level,
			Sample: page.Display(t.Sample), First: page.Display(t.First.String()), Count: analyze.FormatCount(t.Count), CountValue: t.Count,
			BarPct: page.BarPct(t.Count, largest), PairName: "t" + strconv.Itoa(i+1)}
		if logs.ValidateCountOptions(logs.CountOptions{Patterns: []logs.Pattern{logs.Regexp(t.Regexp)}}) == nil {
			row.CountURL = logWithPatternURL(q, path, t.Regexp)
		}
		v.Templates = append(v.Templates, row)
	}
	v.Notices = append(v.Notices, troubleNotices(o)...)
	if o.Truncated {
		v.Notices = append(v.Notices, fmt.Sprintf("More than %s distinct templates: the %s lines of templates first seen after the table was full are in none listed.",
			analyze.FormatCount(logs.MaxTemplates), analyze.FormatCount(o.Overflow)))
	}
	if o.Untemplated > 0 {
		lines := analyze.FormatCount(o.Untemplated) + " lines have"
		if o.Untemplated == 1 {
			lines = "1 line has"
		}
		v.Notices = append(v.Notices, fmt.Sprintf("%s no template: control characters, invalid UTF-8, more than %d bytes of text, or longer than %s.",
			lines, logs.MaxTemplateBytes, analyze.FormatBytes(logs.MaxLineBytes)))
	}
	return v
}

// logWithPatternURL is the report's URL with its parameters and the regexp
// added as one more pattern.
func logWithPatternURL(q logQuery, path, regexp string) string {
	v := q.params.values()
	n := strconv.Itoa(len(q.params.Patterns) + 1)
	v.Set(logParamPattern+n, regexp)
	v.Set(logParamRegexp+n, "1")
	keep := q.values()
	if rows, ok := keep["n"]; ok {
		v["n"] = rows
	}
	return path + "?" + v.Encode()
}

// logLevelTimeline draws the lines of each level per bucket as the pattern
// timeline draws patterns: the levels that have lines, each in its colour.
func logLevelTimeline(lr *logs.Report) *view.LogTimeline {
	if len(lr.Buckets) == 0 || lr.Overview == nil || len(lr.Buckets[0].Levels) != logs.NumLevels {
		return nil
	}
	var shown []int
	for i, l := range lr.Overview.Levels {
		if l.Lines > 0 {
			shown = append(shown, i)
		}
	}
	if len(shown) == 0 {
		return nil
	}
	// The levels become the "patterns" of a report the pattern timeline draws.
	as := &logs.Report{Buckets: make([]logs.Bucket, len(lr.Buckets)), BucketMillis: lr.BucketMillis}
	for _, i := range shown {
		as.Patterns = append(as.Patterns, logs.PatternCount{Pattern: logs.LevelNames[i]})
	}
	for k, b := range lr.Buckets {
		counts := make([]int64, len(shown))
		for j, i := range shown {
			counts[j] = b.Levels[i]
		}
		as.Buckets[k] = logs.Bucket{Start: b.Start, Counts: counts}
	}
	t := logTimeline(as)
	if t == nil {
		return nil
	}
	t.TestID, t.Label = "level-timeline", "lines by level over time"
	classes := map[string]string{}
	for j, i := range shown {
		classes[logColourClass(j)] = logLevelClasses[i]
	}
	for b := range t.Bars {
		for r := range t.Bars[b].Rects {
			t.Bars[b].Rects[r].Class = classes[t.Bars[b].Rects[r].Class]
		}
		t.Bars[b].Title = strings.ReplaceAll(t.Bars[b].Title, "no matching line", "no line")
	}
	for j := range t.Legend {
		t.Legend[j].Class = classes[t.Legend[j].Class]
	}
	return t
}

// logNoMatch is the one line that replaces the charts when the preset and
// patterns matched nothing; empty when something matched (or there is
// nothing to match).
func logNoMatch(lr *logs.Report) string {
	if len(lr.Patterns) == 0 {
		return ""
	}
	for _, p := range lr.Patterns {
		if p.Count > 0 {
			return ""
		}
	}
	what := fmt.Sprintf("any of the %d patterns", len(lr.Patterns))
	if len(lr.Patterns) == 1 {
		what = "the pattern"
	}
	if lr.Preset != "" {
		title := lr.Preset
		if p, ok := logs.LookupPreset(lr.Preset); ok {
			title = p.Title
		}
		what = fmt.Sprintf("any of the %d patterns of the preset “%s”", len(lr.Patterns), title)
	}
	return fmt.Sprintf("Nothing matched: none of the %s lines matches %s, so there is no chart.", analyze.FormatCount(lr.Lines), what)
}

// troubleShown is how many templates of errors and warnings the overview
// names before its most frequent messages (the JSON has up to
// logs.TemplateRows).
const troubleShown = 5

// troubleNotices say the log's errors and warnings first, however rare beside
// its INFO lines: how many FATAL, ERROR and WARN lines there are, then their
// most frequent templates with their counts and where each first occurs.
func troubleNotices(o *logs.Overview) []string {
	var counts []string
	for _, l := range o.Levels {
		if l.Lines > 0 && (l.Level == "FATAL" || l.Level == "ERROR" || l.Level == "WARN") {
			counts = append(counts, analyze.FormatCount(l.Lines)+" "+l.Level)
		}
	}
	if len(counts) == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("Errors and warnings: %s lines in %s.", strings.Join(counts, ", "),
		analyze.Plural(int64(len(o.Trouble)), "template"))}
	for i, t := range o.Trouble {
		if i == troubleShown {
			out = append(out, fmt.Sprintf("… and %s more in the JSON (trouble).", analyze.Plural(int64(len(o.Trouble)-troubleShown), "template")))
			break
		}
		out = append(out, fmt.Sprintf("%s × %s: %s (first at %s)", analyze.FormatCount(t.Count), t.Level, page.Display(t.Template), page.Display(t.First.String())))
	}
	return out
}
