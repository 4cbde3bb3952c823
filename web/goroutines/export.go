package goroutines

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/internal/markdown"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/kind"
	"github.com/leakui/leakui/web/page"
)

// goroutinesJSON fills doc.Analysis for a report over goroutine dumps.
func (k *Kind) goroutinesJSON(r *http.Request, rep *store.Report, doc *kind.ReportJSON) error {
	q, err := parseGoroutineQuery(r, rep)
	if err != nil {
		return err
	}
	base, target := q.artifacts(rep)
	report, err := k.dumps.Report(r.Context(), base, target, q.split)
	if err != nil {
		return err
	}
	doc.Analysis = groups.Analysis(q.mode, base, target, report, q.rows)
	return nil
}

// goroutinesMarkdown writes the ticket summary of a goroutines report: the totals,
// the crash, and the top 10 groups (what grew first, in a comparison).
func (k *Kind) goroutinesMarkdown(w io.Writer, r *http.Request, rep *store.Report) error {
	q, err := parseGoroutineQuery(r, rep)
	if err != nil {
		return err
	}
	base, target := q.artifacts(rep)
	report, err := k.dumps.Report(r.Context(), base, target, q.split)
	if err != nil {
		return err
	}
	link := page.Absolute(r, q.url(page.ReportURL(rep.ID), nil))
	var names [2]string
	if q.mode == groups.ModeDiff {
		b, t := rep.Artifacts[q.base], rep.Artifacts[q.target]
		names = [2]string{b.Name, t.Name}
		fmt.Fprint(w, markdown.Heading(3, "leakui goroutines: "+markdown.Escape(b.Name)+" → "+markdown.Escape(t.Name)))
		fmt.Fprintf(w, "- Report: %s\n", link)
		fmt.Fprintf(w, "- Base: %s sha256 %s\n- Target: %s sha256 %s\n", markdown.Code(b.Name), markdown.Code(b.SHA256), markdown.Code(t.Name), markdown.Code(t.SHA256))
	} else {
		a := rep.Artifacts[q.file]
		names[1] = a.Name
		fmt.Fprint(w, markdown.Heading(3, "leakui goroutines: "+markdown.Escape(a.Name)))
		fmt.Fprintf(w, "- Report: %s\n", link)
		fmt.Fprintf(w, "- File: %s, %s, sha256 %s\n", markdown.Code(a.Name), analyze.FormatBytes(a.Size), markdown.Code(a.SHA256))
	}
	writeGoroutineMarkdown(w, report)
	return nil
}

// writeGoroutineMarkdown writes the totals, the crash and the top 10 groups of a
// report; every name from the dump is escaped.
func writeGoroutineMarkdown(w io.Writer, report *goroutines.Report) {
	gs := len(report.Groups)
	grew, gone := 0, 0
	for i := range report.Groups {
		if c := report.Groups[i].Change; c != nil {
			if c.Gone {
				gone++
			}
			if c.Delta > 0 {
				grew++
			}
		}
	}
	if report.ProvenLeaked {
		fmt.Fprintln(w, "- Proven leaked by the Go runtime (goroutineleak profile): every goroutine below can never run again.")
	} else if report.Leaked > 0 {
		fmt.Fprintf(w, "- %s proven leaked by the Go runtime (state \"(leaked)\").\n", page.Plural(report.Leaked, "goroutine"))
	}
	fmt.Fprintf(w, "- %s in %s (%s)", page.Plural(report.Total, "goroutine"), page.Plural(gs-gone, "group"), markdown.Escape(report.Format))
	if report.DeclaredTotal != nil && *report.DeclaredTotal != report.Total {
		fmt.Fprintf(w, "; the dump says %d", *report.DeclaredTotal)
	}
	if report.Truncated {
		fmt.Fprint(w, "; truncated")
	}
	fmt.Fprintln(w)
	if report.SplitBy == goroutines.SplitCreator {
		fmt.Fprintln(w, "- Groups split by the goroutine that created them.")
	}
	if report.LeakProofHint != "" {
		fmt.Fprintf(w, "- %s\n", markdown.Escape(report.LeakProofHint))
	}
	if b := report.Base; b != nil {
		fmt.Fprintf(w, "- Base: %s; change %s; %s new or grown, %s gone\n", page.Plural(b.Total, "goroutine"),
			page.SignedCount(report.Total-b.Total), page.Plural(grew, "group"), page.Plural(gone, "group"))
	}
	if p := report.Panic; p != nil {
		fmt.Fprintf(w, "- %s:\n", markdown.Escape(p.Kind))
		for _, line := range strings.Split(p.Message, "\n") {
			if line = markdown.Escape(strings.TrimSpace(line)); line != "" {
				fmt.Fprintf(w, "  > %s\n", line)
			}
		}
		if p.Signal != "" {
			fmt.Fprintf(w, "  > %s\n", markdown.Escape(p.Signal))
		}
		if p.Goroutine >= 0 {
			fmt.Fprintf(w, "- Goroutine %d %s; its group comes first.\n", p.Goroutine, panicVerbOf(p.Kind))
		}
	}
	if gs == 0 {
		return
	}
	top := min(gs, 10)
	if report.Base != nil {
		fmt.Fprintf(w, "\nTop %d groups, what grew first:\n\n%s", top, markdown.TableHead(markdown.Right("goroutines"), markdown.Right("base"), markdown.Right("change"),
			markdown.Left("state"), markdown.Left("wait"), markdown.Left("function"), markdown.Left("location")))
	} else {
		fmt.Fprintf(w, "\nTop %d groups:\n\n%s", top, markdown.TableHead(markdown.Right("goroutines"), markdown.Left("state"), markdown.Left("wait"),
			markdown.Left("function"), markdown.Left("location")))
	}
	for i := range report.Groups[:top] {
		g := &report.Groups[i]
		fn, loc := groups.Title(g.Stack), ""
		if g.Stack != nil {
			for _, f := range g.Stack.Frames {
				if f.Func == fn {
					loc = f.Location()
					break
				}
			}
		}
		state := markdown.Escape(g.State)
		if g.Panicking {
			state += " (panicking)"
		}
		if c := g.Change; c != nil {
			change := page.SignedCount(c.Delta)
			if c.New {
				change = "new"
			}
			fmt.Fprint(w, markdown.Row(strconv.Itoa(g.Count), strconv.Itoa(c.Base), change, state, g.Wait(), markdown.Code(fn), markdown.Code(loc)))
			continue
		}
		fmt.Fprint(w, markdown.Row(strconv.Itoa(g.Count), state, g.Wait(), markdown.Code(fn), markdown.Code(loc)))
	}
}

func panicVerbOf(rk string) string {
	if rk == goroutines.FormatPanic {
		return "panicked"
	}
	return "threw"
}
