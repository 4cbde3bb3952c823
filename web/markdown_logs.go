package web

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
	for _, p := range r.Pairs {
		fmt.Fprintf(&b, "\n**%s**\n\n", markdown.Escape(p.Name))
		fmt.Fprintf(&b, "- %s: %d\n", markdown.Code(p.Start.String()), p.Starts)
		fmt.Fprintf(&b, "- %s: %d\n", markdown.Code(p.Close.String()), p.Closes)
		fmt.Fprintf(&b, "- still open: %d\n", p.Open)
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
	return b.String()
}
