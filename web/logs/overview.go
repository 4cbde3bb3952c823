package logs

import (
	"cmp"
	"fmt"
	"slices"
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

// logLevelClasses colours the levels, in the order of logs.LevelNames, the
// same on every page and chart: FATAL dark red, ERROR red, WARN amber, INFO
// grey, DEBUG and TRACE lighter greys, no level the lightest. Patterns have
// their own palette (logColourClass), which none of these is in.
var logLevelClasses = [logs.NumLevels]string{"lvl-fatal", "lvl-error", "lvl-warn", "lvl-info", "lvl-debug", "lvl-trace", "lvl-none"}

// logLevelClass is the class of a level named as logs.LevelNames names it.
func logLevelClass(name string) string { return logLevelClasses[logLevelIndex(name)] }

// logLevelIndex is the index in logs.LevelNames of a level's name
// (logs.LevelNone for another).
func logLevelIndex(name string) int {
	for i, n := range logs.LevelNames {
		if n == name {
			return i
		}
	}
	return logs.LevelNone
}

// logOverviewView builds the page's overview: lines by level over time, and
// the most frequent templates with the links that count them, of one level
// when the query filters the page to it.
func logOverviewView(lr *logs.Report, q logQuery, path string) *view.LogOverview {
	o := lr.Overview
	if o == nil {
		return nil
	}
	v := &view.LogOverview{Distinct: analyze.FormatCount(int64(o.Distinct)), Other: analyze.FormatCount(o.OtherLines)}
	if logTimesUsable(lr) {
		v.Timeline = logLevelTimeline(lr, q.level())
	}
	templates := o.Templates
	if q.level() >= 0 {
		templates = logTemplatesOfLevel(o, q.level())
		v.Filter = logs.LevelNames[q.level()]
		v.Shown = analyze.FormatCount(int64(len(templates)))
	}
	var largest int64
	for _, t := range templates {
		largest = max(largest, t.Count)
	}
	for i, t := range templates {
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

// logTemplatesOfLevel lists the templates of one level, most lines first:
// those of the most frequent templates and, for FATAL, ERROR and WARN, of the
// errors and warnings, which reach further down.
func logTemplatesOfLevel(o *logs.Overview, level int) []logs.Template {
	name := logs.LevelNames[level]
	seen := map[string]bool{}
	var out []logs.Template
	for _, list := range [][]logs.Template{o.Templates, o.Trouble} {
		for _, t := range list {
			if t.Level == name && !seen[t.Regexp] {
				seen[t.Regexp] = true
				out = append(out, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b logs.Template) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

// logLevelTimeline draws the lines of each level per bucket as the pattern
// timeline draws patterns: the levels that have lines, each in its colour;
// only the level given when it is not -1.
func logLevelTimeline(lr *logs.Report, level int) *view.LogTimeline {
	if len(lr.Buckets) == 0 || lr.Overview == nil || len(lr.Buckets[0].Levels) != logs.NumLevels {
		return nil
	}
	var shown []int
	for i, l := range lr.Overview.Levels {
		if l.Lines > 0 && (level < 0 || level == i) {
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
	if level >= 0 {
		t.Label = logs.LevelNames[level] + " lines over time"
	}
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

// troubleShown is how many templates of errors and warnings the page lists
// (the JSON has up to logs.TemplateRows; a level card lists its level's).
const troubleShown = 10

// logTroubleView builds the section that opens the page: the lines per level,
// each a link filtering the page to it, and the templates of FATAL, ERROR and
// WARN lines (of the filtered level only, when it is one of them) with their
// counts and first and last times; one line when there are none.
func logTroubleView(lr *logs.Report, q logQuery, path string) *view.LogTrouble {
	o := lr.Overview
	if o == nil {
		return nil
	}
	v := &view.LogTrouble{AllURL: q.levelURL(path, -1)}
	if q.level() >= 0 {
		v.Filter = logs.LevelNames[q.level()]
	}
	var counts []string
	var trouble int64
	for i, l := range o.Levels {
		if l.Lines == 0 {
			continue
		}
		row := view.LogLevelRow{Level: l.Level, Lines: analyze.FormatCount(l.Lines), LinesValue: l.Lines, Class: logLevelClasses[i],
			URL: q.levelURL(path, i), Active: q.level() == i}
		if row.Active {
			row.URL = v.AllURL
		}
		v.Levels = append(v.Levels, row)
		if i <= logs.LevelWarn {
			counts = append(counts, analyze.FormatCount(l.Lines)+" "+l.Level)
			trouble += l.Lines
		}
	}
	if q.level() > logs.LevelWarn {
		v.None = fmt.Sprintf("The page is filtered to %s lines: errors and warnings are hidden.", logs.LevelNames[q.level()])
		return v
	}
	// The worst level first (FATAL, ERROR, then WARN), most lines first
	// within it; a copy, as the cached report is never modified.
	var rows []logs.Template
	for _, t := range o.Trouble {
		if q.level() < 0 || t.Level == logs.LevelNames[q.level()] {
			rows = append(rows, t)
		}
	}
	slices.SortStableFunc(rows, func(a, b logs.Template) int {
		return cmp.Compare(logLevelIndex(a.Level), logLevelIndex(b.Level))
	})
	switch {
	case q.level() >= 0 && o.Levels[q.level()].Lines == 0:
		v.None = fmt.Sprintf("None: no %s line in %s.", logs.LevelNames[q.level()], analyze.Plural(lr.Lines, "line"))
		return v
	case trouble == 0:
		v.None = fmt.Sprintf("None: no FATAL, ERROR or WARN line in %s.", analyze.Plural(lr.Lines, "line"))
		return v
	case len(rows) == 0:
		v.None = fmt.Sprintf("No %s line has a template listed.", logs.LevelNames[max(q.level(), 0)])
		if q.level() < 0 {
			v.None = "No template of these lines is listed."
		}
	}
	if q.level() < 0 {
		v.Summary = fmt.Sprintf("%s lines in %s.", strings.Join(counts, ", "), analyze.Plural(int64(len(rows)), "template"))
	} else {
		v.Summary = fmt.Sprintf("%s %s lines in %s.", analyze.FormatCount(o.Levels[q.level()].Lines), logs.LevelNames[q.level()],
			analyze.Plural(int64(len(rows)), "template"))
	}
	for i, t := range rows {
		if i == troubleShown {
			n, what := len(rows)-troubleShown, "templates"
			if n == 1 {
				what = "template"
			}
			v.More = fmt.Sprintf("… and %s more %s: a level's card lists its own, the JSON (overview.trouble) all.", analyze.FormatCount(int64(n)), what)
			break
		}
		row := view.LogTroubleRow{Level: t.Level, Class: logLevelClass(t.Level), Template: page.Display(t.Template), Regexp: t.Regexp,
			Sample: page.Display(t.Sample), Count: analyze.FormatCount(t.Count), CountValue: t.Count,
			FirstAt: logPlaceTime(t.First), FirstLine: page.Display(logPlaceLine(t.First)),
			LastAt: logPlaceTime(t.Last), LastLine: page.Display(logPlaceLine(t.Last))}
		if logs.ValidateCountOptions(logs.CountOptions{Patterns: []logs.Pattern{logs.Regexp(t.Regexp)}}) == nil {
			row.CountURL = logWithPatternURL(q, path, t.Regexp)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// logPlaceTime is a place's time, or "no timestamp".
func logPlaceTime(p logs.Place) string {
	if p.Time == nil {
		return "no timestamp"
	}
	return logs.FormatTime(p.Time)
}

// logPlaceLine is "file:line".
func logPlaceLine(p logs.Place) string { return p.File + ":" + strconv.FormatInt(p.Line, 10) }
