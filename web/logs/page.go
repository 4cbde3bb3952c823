package logs

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/linechart"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/chart"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/view"
)

// Geometry of the log charts, in SVG units: the bars sit in a plot area
// inset by the axes' room (left: y tick labels, bottom: x tick labels).
const (
	logTimelineWidth  = 900
	logTimelineHeight = 240
	logPlotLeft       = 76
	logPlotRight      = 12
	logPlotTop        = 10
	logPlotBottom     = 40
	logPairBarMax     = 400
	logColours        = 8
	// logMaxBars is the most bars the timeline draws.
	logMaxBars = 500
)

// showLog renders /r/{id} for a log report. A query whose count parameters
// are valid but not written the canonical way (a submitted form's blank rows)
// is redirected to the canonical URL, so a parameter set has one address;
// invalid parameters give a 400 page with the form to fix them.
func (k *Kind) showLog(w http.ResponseWriter, r *http.Request, rep *store.Report) error {
	def, err := logDefaultParams(rep)
	if err != nil {
		return err
	}
	q, qerr := parseLogQuery(r.URL.Query(), def)
	if qerr != nil {
		var e *serrors.Error
		if errors.As(qerr, &e) || !errors.Is(qerr, analyze.ErrInvalidParameter) {
			return qerr
		}
		status, msg := serrors.StatusOf(qerr)
		pg := k.logPageHead(rep, q)
		pg.Own, pg.Error = false, msg
		return k.d.Render(w, r, status, view.Page{Title: pg.Title, Nav: "reports"}, view.LogReportPageView(pg))
	}
	path := page.ReportURL(rep.ID)
	if canonical := q.url(path, nil); canonical != path+logQuerySuffix(r.URL.Query()) {
		http.Redirect(w, r, canonical, http.StatusSeeOther)
		return nil
	}
	lr, err := k.logCountArtifacts(r.Context(), rep.Artifacts, q.params)
	if err != nil {
		return err
	}
	pg := k.logPage(rep, q, lr)
	return k.d.Render(w, r, http.StatusOK, view.Page{Title: pg.Title, Nav: "reports", Description: chart.BannerDescription(pg.Verdict)}, view.LogReportPageView(pg))
}

// logQuerySuffix is "?query" as url.Values encodes it, or "" for none.
func logQuerySuffix(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// logPageHead builds the part of the page that needs no count: title, files,
// links and the form.
func (k *Kind) logPageHead(rep *store.Report, q logQuery) view.LogReportPage {
	path := page.ReportURL(rep.ID)
	pg := view.LogReportPage{
		ID: rep.ID, Created: page.FormatTime(rep.CreatedAt), Permalink: q.url(path, nil), Own: q.own, OwnURL: path,
		Links: []view.Link{
			{Label: "JSON", URL: q.countURL(page.ReportJSONURL(rep.ID))},
			{Label: "Markdown", URL: q.countURL(path + ".md")},
		},
	}
	pg.Title = "Log counts: " + logFilesTitle(rep.Artifacts)
	for _, a := range rep.Artifacts {
		pg.Files = append(pg.Files, view.LogFileRow{Name: a.Name, Size: analyze.FormatBytes(a.Size), SHA256: a.SHA256, Download: page.ArtifactURL(a.SHA256)})
		if pg.Label == "" {
			pg.Label = a.Label
		}
	}
	pg.Form = logForm(path, q)
	return pg
}

// logFilesTitle names the files of a report for its title.
func logFilesTitle(arts []store.ReportArtifact) string {
	switch len(arts) {
	case 0:
		return "no file"
	case 1:
		return arts[0].Name
	}
	return fmt.Sprintf("%s and %d more", arts[0].Name, len(arts)-1)
}

// logForm fills the pattern form from the query's rows, with one blank row
// of each kind to type into.
func logForm(action string, q logQuery) view.LogPatternForm {
	f := view.LogPatternForm{Action: action, Preset: q.raw.Preset, Bucket: q.raw.Bucket, Presets: logPresetOptions()}
	for _, r := range q.raw.Patterns {
		f.Patterns = append(f.Patterns, view.LogFormRow{Text: r.Text, Regexp: r.Regexp})
	}
	for _, r := range q.raw.Pairs {
		f.Pairs = append(f.Pairs, view.LogFormRow{Text: r.Text, Regexp: r.Regexp, Key: r.Key})
	}
	f.Patterns = append(f.Patterns, view.LogFormRow{})
	f.Pairs = append(f.Pairs, view.LogFormRow{})
	if q.rows != logDefaultKeyRow {
		n := "all"
		if q.rows > 0 {
			n = strconv.Itoa(q.rows)
		}
		f.Hidden = append(f.Hidden, view.Pair{Label: "n", Value: n})
	}
	return f
}

// logUploadForm is the pattern form inside the dashboard's upload form.
func logUploadForm() view.LogPatternForm {
	return view.LogPatternForm{Upload: true, Presets: logPresetOptions(),
		Patterns: []view.LogFormRow{{}}, Pairs: []view.LogFormRow{{}}}
}

func logPresetOptions() []view.LogPresetOption {
	var out []view.LogPresetOption
	for _, p := range logs.Presets() {
		out = append(out, view.LogPresetOption{Name: p.Name, Title: p.Title, Description: p.Description})
	}
	return out
}

// logPage builds the whole page model from a count.
func (k *Kind) logPage(rep *store.Report, q logQuery, lr *logs.Report) view.LogReportPage {
	path := page.ReportURL(rep.ID)
	pg := k.logPageHead(rep, q)
	pg.Lines, pg.Bytes = analyze.FormatCount(lr.Lines), analyze.FormatBytes(lr.Bytes)
	for i := range pg.Files {
		if i >= len(lr.Files) {
			break
		}
		f := lr.Files[i]
		pg.Files[i].Lines, pg.Files[i].Bytes = analyze.FormatCount(f.Lines), analyze.FormatBytes(f.Bytes)
		pg.Files[i].Compression = string(f.Compression)
		if pg.Files[i].Compression == "" {
			pg.Files[i].Compression = "none"
		}
		if f.Encoding != "" {
			pg.Files[i].Compression += " (" + f.Encoding + " text)"
		}
	}
	if logHasKeys(lr) {
		pg.Links = append(pg.Links, view.Link{Label: "CSV", URL: q.countURL(path + "/keys.csv")})
	}
	if len(lr.Files) > 1 {
		for _, f := range lr.Files {
			pg.FileNames = append(pg.FileNames, page.Display(f.Name))
		}
	}
	pg.Patterns = logPatternRows(lr, true)
	pg.Spans = logSpanViews(lr)
	showAll := q.url(path, func(v url.Values) { v.Set("n", "all") })
	for _, p := range lr.Pairs {
		pg.Pairs = append(pg.Pairs, logPairView(p, q.rows, showAll, q.countURL(path+"/keys.csv")))
	}
	pg.Notices = logNotices(lr)
	if lr.YearlessUntimed {
		pg.Notices = append(pg.Notices, logYearlessNotice)
	}
	if logTimesUsable(lr) {
		pg.Timeline = logTimeline(lr)
		pg.OpenCharts = logOpenCharts(lr, func(ch string) string { return q.countURL(page.ReportChartImageURL(rep.ID, ch, "")) })
	} else {
		pg.Notices = append(pg.Notices, logTimesNotice)
	}
	if pg.NoMatch = logNoMatch(lr); pg.NoMatch != "" {
		pg.Timeline, pg.OpenCharts = nil, nil
	}
	pg.Overview = logOverviewView(lr, q, path)
	pg.Trouble = logTroubleView(lr, q, path)
	pg.Verdict = logBanner(pg)
	return pg
}

// logTimesNotice explains why a report has no counts over time although its
// lines have timestamps.
const logTimesNotice = "Counts over time are left out: the buckets reach outside the years 0–9999. Count the files one by one to see them."

// logYearlessNotice explains lines left off the time axis.
const logYearlessNotice = "Some files' timestamps have no year (syslog, geth): their lines are counted, but left off the time axis " +
	"the dated files set. Count them on their own to see them over time."

// logTimesUsable reports whether the counts over time can be drawn and
// written as JSON: timestamps without a year (year 0) and dated ones on one
// axis make buckets thousands of days wide, and epoch-aligned buckets over
// year-0 times may start before year 0, which JSON times cannot hold.
func logTimesUsable(lr *logs.Report) bool {
	if len(lr.Buckets) == 0 {
		return true
	}
	first, last := lr.Buckets[0].Start.Year(), lr.Buckets[len(lr.Buckets)-1].Start.Year()
	if first < 0 || last > 9999 {
		return false
	}
	return !(first <= logs.Yearless && last > logs.Yearless+1)
}

// logHasKeys reports whether some pair has a key regexp (the CSV has rows to
// offer).
func logHasKeys(lr *logs.Report) bool {
	for _, p := range lr.Pairs {
		if p.Key != "" {
			return true
		}
	}
	return false
}

// logPatternRows formats the pattern counts; perFile adds the per-file
// columns when there are several files.
func logPatternRows(lr *logs.Report, perFile bool) []view.LogPatternRow {
	var largest int64
	for _, p := range lr.Patterns {
		largest = max(largest, p.Count)
	}
	roles := map[logs.Pattern][]string{}
	for _, pr := range lr.Pairs {
		roles[pr.Start] = append(roles[pr.Start], "starts "+pr.Name)
		roles[pr.Close] = append(roles[pr.Close], "closes "+pr.Name)
	}
	for _, sp := range lr.Spans {
		roles[sp.From] = append(roles[sp.From], "begins "+sp.Name)
		roles[sp.To] = append(roles[sp.To], "ends "+sp.Name)
		if sp.Else.Text != "" {
			roles[sp.Else] = append(roles[sp.Else], "else ends "+sp.Name)
		}
	}
	rows := make([]view.LogPatternRow, len(lr.Patterns))
	for i, p := range lr.Patterns {
		row := view.LogPatternRow{Pattern: page.Display(p.Pattern), Regexp: p.Regexp, Count: analyze.FormatCount(p.Count), CountValue: p.Count,
			BarPct: page.BarPct(p.Count, largest), Class: logColourClass(i), None: p.Count == 0,
			Role: strings.Join(roles[logs.Pattern{Text: p.Pattern, Regexp: p.Regexp}], ", ")}
		if perFile && len(lr.Files) > 1 {
			for _, n := range p.Files {
				row.PerFile = append(row.PerFile, analyze.FormatCount(n))
			}
		}
		if i < len(lr.Untimed) && lr.Untimed[i] > 0 {
			row.Untimed = analyze.FormatCount(lr.Untimed[i])
		}
		rows[i] = row
	}
	return rows
}

func logColourClass(i int) string { return "logc" + strconv.Itoa(i%logColours+1) }

// logPairView formats one pair with its first rows keys never closed (all when
// rows is 0).
func logPairView(p logs.PairReport, rows int, showAll, csv string) view.LogPairView {
	v := view.LogPairView{Name: p.Name, Start: page.Display(p.Start.Text), Close: page.Display(p.Close.Text),
		StartRegexp: p.Start.Regexp, CloseRegexp: p.Close.Regexp,
		Starts: analyze.FormatCount(p.Starts), Closes: analyze.FormatCount(p.Closes), Open: analyze.FormatCount(p.Open),
		StartsValue: p.Starts, ClosesValue: p.Closes, OpenValue: p.Open, BarMax: logPairBarMax,
		Measurable: p.Measurable, NotMeasurable: page.Display(p.NotMeasurable), Fallback: page.Display(p.Fallback)}
	if largest := max(p.Starts, p.Closes); largest > 0 {
		v.StartW = int(p.Starts * logPairBarMax / largest)
		v.CloseW = int(p.Closes * logPairBarMax / largest)
		if p.Starts > 0 {
			v.StartW = max(v.StartW, 1)
		}
		if p.Closes > 0 {
			v.CloseW = max(v.CloseW, 1)
		}
	}
	if p.Key == "" {
		return v
	}
	v.Keyed, v.Key, v.Truncated, v.CSV = true, page.Display(p.Key), p.KeysTruncated, csv
	v.KeysStarted, v.KeysClosed = analyze.FormatCount(p.KeysStarted), analyze.FormatCount(p.KeysClosed)
	v.UnclosedCount = analyze.FormatCount(int64(len(p.UnclosedKeys)))
	v.UnkeyedStarts, v.UnkeyedClose = analyze.FormatCount(p.UnkeyedStarts), analyze.FormatCount(p.UnkeyedCloses)
	v.All = len(p.UnclosedKeys)
	shown := p.UnclosedKeys
	if rows > 0 && len(shown) > rows {
		shown, v.ShowAll = shown[:rows], showAll
	}
	v.Count = len(shown)
	for i, k := range shown {
		v.Keys = append(v.Keys, view.LogOpenKeyRow{Rank: i + 1, Key: page.Display(k.Key),
			Open: analyze.FormatCount(k.Open), Starts: analyze.FormatCount(k.Starts), Closes: analyze.FormatCount(k.Closes), OpenValue: k.Open,
			FirstFile: page.Display(k.First.File), FirstLine: strconv.FormatInt(k.First.Line, 10), FirstAt: logs.FormatTime(k.First.Time),
			LastFile: page.Display(k.Last.File), LastLine: strconv.FormatInt(k.Last.Line, 10), LastAt: logs.FormatTime(k.Last.Time)})
	}
	return v
}

// logSpanViews formats the times the preset measured between lines.
func logSpanViews(lr *logs.Report) []view.LogSpanView {
	var out []view.LogSpanView
	for _, sp := range lr.Spans {
		until := "the first " + logPatternCode(sp.To) + " after it"
		if sp.Else.Text != "" {
			until += ", else the last " + logPatternCode(sp.Else)
		}
		v := view.LogSpanView{Name: page.Display(sp.Name), From: page.Display(sp.From.String()), Until: until,
			Measurable: sp.Measurable, Duration: sp.Duration, Millis: sp.Millis, EndedBy: page.Display(sp.EndedBy),
			NotMeasurable: page.Display(sp.NotMeasurable)}
		if sp.Start != nil {
			v.Start = page.Display(sp.Start.String())
		}
		if sp.End != nil {
			v.End = page.Display(sp.End.String())
		}
		out = append(out, v)
	}
	return out
}

// logPatternCode quotes a pattern for prose: “text”, or “/regexp/”.
func logPatternCode(p logs.Pattern) string { return "“" + page.Display(p.String()) + "”" }

// logNotices explains what the numbers do not cover.
func logNotices(lr *logs.Report) []string {
	var out []string
	if lr.LongLines > 0 {
		out = append(out, fmt.Sprintf("%s lines are longer than %s: they are counted exactly, but keys and timestamps come from their first %s.",
			analyze.FormatCount(lr.LongLines), analyze.FormatBytes(logs.MaxLineBytes), analyze.FormatBytes(logs.MaxLineBytes)))
	}
	if lr.BucketWidened {
		out = append(out, fmt.Sprintf("The bucket width was widened to %s so that the chart has at most %d bars.", lr.BucketWidth, logs.MaxBuckets))
	}
	var untimed int64
	for _, n := range lr.Untimed {
		untimed += n
	}
	if untimed > 0 && len(lr.Buckets) > 0 {
		out = append(out, fmt.Sprintf("%s matching lines came before the first timestamp of their file and are in no bar of the chart.", analyze.FormatCount(untimed)))
	}
	for _, f := range lr.Files {
		switch {
		case f.Kind == string(analyze.KindUnknown):
			out = append(out, fmt.Sprintf("%s does not look like a log (too few of its lines carry a timestamp or a level); it was counted line by line all the same.", page.Display(f.Name)))
		case f.Kind != "" && f.Kind != string(analyze.KindLog):
			out = append(out, fmt.Sprintf("%s looks like a %s, not a log; it was counted line by line all the same.", page.Display(f.Name), analyze.Kind(f.Kind).Description()))
		}
	}
	return out
}

// logTimeline draws the buckets as stacked bars; nil when the log has no
// timestamps (or buckets are off).
func logTimeline(lr *logs.Report) *view.LogTimeline {
	if len(lr.Buckets) == 0 || len(lr.Patterns) == 0 {
		return nil
	}
	width := time.Duration(lr.BucketMillis) * time.Millisecond
	first, last := lr.Buckets[0].Start, lr.Buckets[len(lr.Buckets)-1].Start.Add(width)
	// A chosen width may make thousands of buckets: the chart then draws a bar
	// per group of buckets, so it stays readable and the page small.
	buckets := lr.Buckets
	if group := (len(buckets) + logMaxBars - 1) / logMaxBars; group > 1 {
		width *= time.Duration(group)
		buckets = logGroupBuckets(lr.Buckets, group)
	}
	t := &view.LogTimeline{Width: logTimelineWidth, Height: logTimelineHeight, BucketWidth: logs.FormatDuration(width),
		Buckets: len(buckets), From: logs.FormatTime(&first), To: logs.FormatTime(&last)}
	var yMax int64
	for _, b := range buckets {
		var sum int64
		for _, n := range b.Counts {
			sum += n
		}
		yMax = max(yMax, sum)
	}
	t.YMax = analyze.FormatCount(yMax)
	plotW := float64(logTimelineWidth - logPlotLeft - logPlotRight)
	plotH := float64(logTimelineHeight - logPlotTop - logPlotBottom)
	yTop := logTimelineAxes(t, first, last, yMax, plotW, plotH)
	step := plotW / float64(len(buckets))
	barW := step * 0.85
	if step < 3 {
		barW = step
	}
	for i, b := range buckets {
		start := b.Start
		bar := view.LogBar{Start: start.UTC().Format(time.RFC3339Nano)}
		var title strings.Builder
		title.WriteString(logs.FormatTime(&start))
		y := float64(logPlotTop) + plotH
		x := fmt.Sprintf("%.2f", logPlotLeft+float64(i)*step)
		w := fmt.Sprintf("%.2f", barW)
		for k, n := range b.Counts {
			if n == 0 {
				continue
			}
			bar.Total += n
			fmt.Fprintf(&title, "\n%s: %s", page.Short(page.Display(logs.Pattern{Text: lr.Patterns[k].Pattern, Regexp: lr.Patterns[k].Regexp}.String()), 60), analyze.FormatCount(n))
			if yMax == 0 {
				continue
			}
			h := float64(n) / yTop * plotH
			y -= h
			bar.Rects = append(bar.Rects, view.LogRect{X: x, Y: fmt.Sprintf("%.2f", y), W: w, H: fmt.Sprintf("%.2f", h), Class: logColourClass(k)})
		}
		if bar.Total == 0 {
			title.WriteString("\nno matching line")
		}
		bar.Title = title.String()
		t.Bars = append(t.Bars, bar)
	}
	for k, p := range lr.Patterns {
		t.Legend = append(t.Legend, view.LogLegend{Label: page.Short(page.Display(logs.Pattern{Text: p.Pattern, Regexp: p.Regexp}.String()), 60), Class: logColourClass(k)})
	}
	return t
}

// logTimelineAxes lays out a bar chart's axes from first to last (the
// bars' span) and 0 to above yMax, with the ticks and tick labels of the line
// charts (internal/linechart): y counts in steps of 1, 2 or 5 times a power of
// ten, x clock times as fine as the span needs. It returns the y axis's top,
// the count at the plot's top edge.
func logTimelineAxes(t *view.LogTimeline, first, last time.Time, yMax int64, plotW, plotH float64) float64 {
	f := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
	t.PlotX, t.PlotY, t.PlotW, t.PlotH = f(logPlotLeft), f(logPlotTop), f(plotW), f(plotH)
	yTicks := linechart.YTicks(float64(yMax), "")
	yTop := yTicks[len(yTicks)-1]
	for _, v := range yTicks {
		t.YTicks = append(t.YTicks, view.LogTick{At: f(logPlotTop + plotH - v/yTop*plotH), Label: linechart.FormatY(v, "")})
	}
	lo, hi := float64(first.UnixMilli())/1000, float64(last.UnixMilli())/1000
	for _, x := range linechart.XTicks(lo, hi, true) {
		t.XTicks = append(t.XTicks, view.LogTick{At: f(logPlotLeft + (x-lo)/(hi-lo)*plotW), Label: linechart.FormatX(x, true, hi-lo)})
	}
	t.YLabel, t.XLabel = "lines", "time (as the log writes it)"
	t.YLabelX, t.YLabelY = "14", f(logPlotTop+plotH/2)
	t.XLabelX, t.XLabelY = f(logPlotLeft+plotW/2), f(logTimelineHeight-4)
	return yTop
}

// logGroupBuckets sums every group consecutive buckets into one.
func logGroupBuckets(in []logs.Bucket, group int) []logs.Bucket {
	var out []logs.Bucket
	for i := 0; i < len(in); i += group {
		b := logs.Bucket{Start: in[i].Start, Counts: make([]int64, len(in[i].Counts))}
		for _, o := range in[i:min(i+group, len(in))] {
			for k, n := range o.Counts {
				b.Counts[k] += n
			}
		}
		out = append(out, b)
	}
	return out
}

// logOpenCharts draws, per measurable pair, the number still open at the end
// of each bucket, against the buckets' wall time; imageURL, when given, is each
// chart's stable URL as an SVG image.
func logOpenCharts(lr *logs.Report, imageURL func(ch string) string) []view.Chart {
	var charts []view.Chart
	for _, c := range logOpenLineCharts(lr) {
		v := chart.View(c.id, c.chart)
		if imageURL != nil {
			v.ImageURL = imageURL(c.id)
		}
		charts = append(charts, v)
	}
	return charts
}

// logOpenChartID names the still-open chart of the k-th pair (from 0).
func logOpenChartID(k int) string { return "open-" + strconv.Itoa(k+1) }

// logOpenChart is one pair's still-open chart and its id.
type logOpenChart struct {
	id    string
	chart linechart.Chart
}

// logOpenLineCharts is the still-open chart of logOpenCharts of each pair that is
// measurable: a pair without a line would draw a flat zero, which reads as
// balanced. Each keeps its pair's id (open-<k>).
func logOpenLineCharts(lr *logs.Report) []logOpenChart {
	if len(lr.Buckets) == 0 {
		return nil
	}
	x := make([]float64, len(lr.Buckets))
	for i, b := range lr.Buckets {
		x[i] = float64(b.Start.Unix())
	}
	var charts []logOpenChart
	for k, p := range lr.Pairs {
		if !p.Measurable {
			continue
		}
		values := make([]float64, len(lr.Buckets))
		for i, b := range lr.Buckets {
			if k < len(b.Open) {
				values[i] = float64(b.Open[k])
			}
		}
		charts = append(charts, logOpenChart{logOpenChartID(k), linechart.Chart{Title: "Still open over time: " + p.Name, XTime: true, X: x,
			Series: []linechart.Series{{Key: "open", Name: "still open (" + p.Name + ")", Class: "s4", Values: values}}}})
	}
	return charts
}
