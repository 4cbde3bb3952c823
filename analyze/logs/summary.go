package logs

import (
	"encoding/csv"
	"fmt"

	"github.com/leakui/leakui/analyze"

	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// timeLayout is how log times are shown: to the millisecond, UTC.
const timeLayout = "2006-01-02 15:04:05.000"

// FormatTime renders a log timestamp for tables: without the year when the
// log's layout had none.
func FormatTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	if t.Year() == Yearless {
		return t.Format("01-02 15:04:05.000")
	}
	return t.Format(timeLayout)
}

// String renders a place as file:line and its time.
func (p Place) String() string {
	s := p.File + ":" + strconv.FormatInt(p.Line, 10)
	if p.Time != nil {
		s += " " + FormatTime(p.Time)
	}
	return s
}

// SummaryKeyRows is how many unclosed keys the text summary (WriteText) and
// the Markdown summary show per pair; JSON and CSV have them all.
const SummaryKeyRows = 20

// WriteText writes the report as the human tables of `leakui count`.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	files := "1 file"
	if len(r.Files) != 1 {
		files = fmt.Sprintf("%d files", len(r.Files))
	}
	fmt.Fprintf(w, "%s, %s lines, %s\n", files, analyze.FormatCount(r.Lines), analyze.FormatBytes(r.Bytes))
	if r.LongLines > 0 {
		fmt.Fprintf(w, "%s lines longer than %s: keys and timestamps were taken from their start\n", analyze.FormatCount(r.LongLines), analyze.FormatBytes(MaxLineBytes))
	}
	if len(r.Patterns) > 0 {
		fmt.Fprintln(w)
		fmt.Fprint(tw, "lines\t")
		if len(r.Files) > 1 {
			for _, f := range r.Files {
				fmt.Fprintf(tw, "%s\t", filepath.Base(f.Name))
			}
		}
		fmt.Fprint(tw, " pattern\n")
		for _, p := range r.Patterns {
			fmt.Fprintf(tw, "%s\t", analyze.FormatCount(p.Count))
			if len(r.Files) > 1 {
				for _, n := range p.Files {
					fmt.Fprintf(tw, "%s\t", analyze.FormatCount(n))
				}
			}
			fmt.Fprintf(tw, " %s\n", Pattern{p.Pattern, p.Regexp})
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Pairs) > 0 {
		fmt.Fprintln(w)
		fmt.Fprint(tw, "starts\tcloses\tstill open\t pair\n")
		for _, p := range r.Pairs {
			open := analyze.FormatCount(p.Open)
			if !p.Measurable {
				open = "not measurable"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t %s\n", analyze.FormatCount(p.Starts), analyze.FormatCount(p.Closes), open, p.Name)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, p := range r.Pairs {
			if !p.Measurable {
				fmt.Fprintf(w, "%s: %s\n", p.Name, p.NotMeasurable)
			}
		}
	}
	if len(r.Spans) > 0 {
		fmt.Fprintln(w)
		for _, s := range r.Spans {
			fmt.Fprintf(w, "%s: %s\n", s.Name, s.Text())
		}
	}
	for _, p := range r.Pairs {
		if p.Key == "" || !p.Measurable {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s keys started, %s closed, %s not closed as often as started%s\n", p.Name,
			analyze.FormatCount(p.KeysStarted), analyze.FormatCount(p.KeysClosed), analyze.FormatCount(int64(len(p.UnclosedKeys))), p.TruncatedNote())
		if p.UnkeyedStarts+p.UnkeyedCloses > 0 {
			fmt.Fprintf(w, "(%s starts and %s closes had no key)\n", analyze.FormatCount(p.UnkeyedStarts), analyze.FormatCount(p.UnkeyedCloses))
		}
		if p.Fallback != "" {
			fmt.Fprintln(w, p.Fallback)
		}
		if len(p.UnclosedKeys) == 0 {
			continue
		}
		kw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(kw, "open\tstarts\tkey\tfirst start\tlast start\n")
		for i, k := range p.UnclosedKeys {
			if i == SummaryKeyRows {
				break
			}
			fmt.Fprintf(kw, "%s\t%s\t%s\t%s\t%s\n", analyze.FormatCount(k.Open), analyze.FormatCount(k.Starts), k.Key, k.First, k.Last)
		}
		if err := kw.Flush(); err != nil {
			return err
		}
		if len(p.UnclosedKeys) > SummaryKeyRows {
			fmt.Fprintf(w, "(the first %d of %s; -json or -csv FILE for all)\n", SummaryKeyRows, analyze.FormatCount(int64(len(p.UnclosedKeys))))
		}
	}
	if r.Overview != nil {
		if err := r.Overview.writeText(w); err != nil {
			return err
		}
	}
	if len(r.Buckets) > 0 {
		first, last := r.Buckets[0].Start, r.Buckets[len(r.Buckets)-1].Start
		fmt.Fprintf(w, "\ncounts over time: %d buckets of %s from %s to %s (-json for the series)\n",
			len(r.Buckets), r.BucketWidth, FormatTime(&first), FormatTime(&last))
	}
	return nil
}

// Text says in one line what the span measured: its time, from where to
// where, or why it is not measurable.
func (s SpanReport) Text() string {
	if !s.Measurable {
		if s.Start == nil {
			return s.NotMeasurable
		}
		return s.NotMeasurable + " (first “" + s.From.String() + "” at " + s.Start.String() + ")"
	}
	return fmt.Sprintf("%s, from %s (“%s”) to %s (“%s”)", s.Duration, s.Start, s.From, s.End, s.EndedBy)
}

// TruncatedNote is what the summaries add after a pair's key counts when its key
// table was truncated, starting with a space; empty otherwise.
func (p PairReport) TruncatedNote() string {
	if p.KeysTruncated {
		return " (key table truncated: more distinct keys than the limit)"
	}
	return ""
}

// CSVHeader is the header row of WriteUnclosedCSV.
var CSVHeader = []string{"pair", "key", "starts", "closes", "open", "first_file", "first_line", "first_time", "last_file", "last_line", "last_time"}

// WriteUnclosedCSV writes the keys never closed of every keyed pair as CSV,
// with the CSVHeader row first. Times are RFC 3339 in UTC, empty when
// unknown.
func (r *Report) WriteUnclosedCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, p := range r.Pairs {
		for _, k := range p.UnclosedKeys {
			row := []string{p.Name, csvSafe(k.Key), strconv.FormatInt(k.Starts, 10), strconv.FormatInt(k.Closes, 10),
				strconv.FormatInt(k.Open, 10), csvSafe(k.First.File), strconv.FormatInt(k.First.Line, 10), csvTime(k.First.Time),
				csvSafe(k.Last.File), strconv.FormatInt(k.Last.Line, 10), csvTime(k.Last.Time)}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// csvSafe keeps a cell from being read as a formula by spreadsheets: keys
// come from logs, which anyone may have written to.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// SummaryTemplateRows is how many templates the text and Markdown summaries
// list; JSON has up to TemplateRows.
const SummaryTemplateRows = 10

// writeText writes the levels and the most frequent templates with their
// regexps.
func (o *Overview) writeText(w io.Writer) error {
	fmt.Fprint(w, "\nlines by level:")
	for _, l := range o.Levels {
		if l.Lines > 0 {
			fmt.Fprintf(w, " %s %s", l.Level, analyze.FormatCount(l.Lines))
		}
	}
	if len(o.Trouble) > 0 {
		fmt.Fprint(w, "\n\nerrors and warnings first (each count is grep -cE of its regexp):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "lines\t level\t template\n")
		for i, t := range o.Trouble {
			if i == SummaryTemplateRows {
				break
			}
			fmt.Fprintf(tw, "%s\t %s\t %s\n\t\t %s\n\t\t first %s, last %s\n", analyze.FormatCount(t.Count), t.Level, t.Template, t.Regexp, t.First, t.Last)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprint(w, "\nmost frequent templates")
	} else {
		fmt.Fprint(w, "\n\nmost frequent templates")
	}
	fmt.Fprintf(w, " (%s distinct; each count is grep -cE of its regexp):\n", analyze.FormatCount(int64(o.Distinct)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "lines\t template\n")
	for i, t := range o.Templates {
		if i == SummaryTemplateRows {
			break
		}
		fmt.Fprintf(tw, "%s\t %s\n\t %s\n", analyze.FormatCount(t.Count), t.Template, t.Regexp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if o.Truncated {
		fmt.Fprintf(w, "(more than %d distinct templates: %s lines of later ones are in none)\n", MaxTemplates, analyze.FormatCount(o.Overflow))
	}
	return nil
}
