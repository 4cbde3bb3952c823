package logs

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/markdown"
)

// logReportMarkdown renders a log report as evidence to paste into a ticket:
// the counts of the patterns outside pairs, then per pair the start and close
// counts and what is still open, then the keys never closed (the first
// logs.SummaryKeyRows of them). Patterns, keys and file names come from
// whoever wrote the log and are written with the Markdown writer.
func logReportMarkdown(r *logs.Report) string {
	var b strings.Builder
	files := make([]string, len(r.Files))
	for i, f := range r.Files {
		files[i] = markdown.Code(f.Name)
	}
	fmt.Fprintf(&b, "Log counts over %s: %s lines, %s.\n", strings.Join(files, ", "), analyze.FormatCount(r.Lines), analyze.FormatBytes(r.Bytes))
	inPair := map[string]bool{}
	for _, p := range r.Pairs {
		inPair[p.Start.Text] = true
		inPair[p.Close.Text] = true
	}
	var lone []logs.PatternCount
	for _, p := range r.Patterns {
		if !inPair[p.Pattern] {
			lone = append(lone, p)
		}
	}
	if len(lone) > 0 {
		b.WriteString("\n")
		for _, p := range lone {
			fmt.Fprintf(&b, "- %s: %d\n", markdown.Code(logs.Pattern{Text: p.Pattern, Regexp: p.Regexp}.String()), p.Count)
		}
	}
	if len(r.Spans) > 0 {
		b.WriteString("\n")
		for _, sp := range r.Spans {
			fmt.Fprintf(&b, "- %s: %s\n", markdown.Escape(sp.Name), markdown.Escape(sp.Text()))
		}
	}
	for _, p := range r.Pairs {
		fmt.Fprintf(&b, "\n**%s**\n\n", markdown.Escape(p.Name))
		fmt.Fprintf(&b, "- %s: %d\n", markdown.Code(p.Start.String()), p.Starts)
		fmt.Fprintf(&b, "- %s: %d\n", markdown.Code(p.Close.String()), p.Closes)
		if !p.Measurable {
			fmt.Fprintf(&b, "- %s\n", markdown.Escape(p.NotMeasurable))
			continue
		}
		fmt.Fprintf(&b, "- still open: %d\n", p.Open)
		if p.Fallback != "" {
			fmt.Fprintf(&b, "- %s\n", markdown.Escape(p.Fallback))
		}
		if p.Key == "" {
			continue
		}
		fmt.Fprintf(&b, "- keys (%s): %d started, %d closed, %d never closed%s\n", markdown.Code(p.Key),
			p.KeysStarted, p.KeysClosed, len(p.UnclosedKeys), p.TruncatedNote())
		if len(p.UnclosedKeys) == 0 {
			continue
		}
		b.WriteString("\n" + markdown.TableHead(markdown.Left("key"), markdown.Right("starts"), markdown.Right("closes"), markdown.Left("first start"), markdown.Left("last start")))
		for i, k := range p.UnclosedKeys {
			if i == logs.SummaryKeyRows {
				b.WriteString(markdown.Row(fmt.Sprintf("… %d more", len(p.UnclosedKeys)-logs.SummaryKeyRows), "", "", "", ""))
				break
			}
			b.WriteString(markdown.Row(markdown.Code(k.Key), fmt.Sprint(k.Starts), fmt.Sprint(k.Closes), markdown.Escape(k.First.String()), markdown.Escape(k.Last.String())))
		}
	}
	if r.Overview != nil {
		logOverviewMarkdown(&b, r.Overview)
	}
	return b.String()
}

// logOverviewMarkdown writes the lines by level and the most frequent
// templates (the first logs.SummaryTemplateRows), each with its regexp.
func logOverviewMarkdown(b *strings.Builder, o *logs.Overview) {
	var levels []string
	for _, l := range o.Levels {
		if l.Lines > 0 {
			levels = append(levels, fmt.Sprintf("%s %s", l.Level, analyze.FormatCount(l.Lines)))
		}
	}
	fmt.Fprintf(b, "\n**Lines by level:** %s\n", markdown.Escape(strings.Join(levels, ", ")))
	if len(o.Trouble) > 0 {
		fmt.Fprintf(b, "\n**Errors and warnings** (each count is `grep -cE` of the template's regexp)\n\n")
		b.WriteString(markdown.TableHead(markdown.Right("lines"), markdown.Left("level"), markdown.Left("template"), markdown.Left("first"), markdown.Left("last")))
		for i, t := range o.Trouble {
			if i == logs.SummaryTemplateRows {
				b.WriteString(markdown.Row(fmt.Sprintf("… %d more", len(o.Trouble)-i), "", "", "", ""))
				break
			}
			b.WriteString(markdown.Row(fmt.Sprint(t.Count), markdown.Escape(t.Level), markdown.Code(t.Template),
				markdown.Escape(t.First.String()), markdown.Escape(t.Last.String())))
		}
	}
	if len(o.Templates) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**Most frequent messages** (%s distinct templates; each count is `grep -cE` of the template's regexp)\n\n", analyze.FormatCount(int64(o.Distinct)))
	b.WriteString(markdown.TableHead(markdown.Right("lines"), markdown.Left("level"), markdown.Left("template"), markdown.Left("regexp")))
	for i, t := range o.Templates {
		if i == logs.SummaryTemplateRows {
			b.WriteString(markdown.Row(fmt.Sprintf("… %d more", len(o.Templates)-i), "", "", ""))
			break
		}
		b.WriteString(markdown.Row(fmt.Sprint(t.Count), markdown.Escape(t.Level), markdown.Code(t.Template), markdown.Code(t.Regexp)))
	}
}
