package jvm

import (
	"fmt"
	"io"
	"strings"
)

// ThreadReport is what a page shows about one uploaded thread dump file: the
// groups of its last dump, what changed since its first dump when it holds several
// (a script that runs jstack three times into one file), and the class histograms
// printed with the dumps.
type ThreadReport struct {
	// Dumps is the number of dumps in the file.
	Dumps int `json:"dumps"`
	// Groups is the grouped view of the last dump.
	Groups *ThreadGroups `json:"groups"`
	// Diff compares the first dump with the last; nil for a file of one dump.
	Diff       *ThreadDiff  `json:"diff,omitempty"`
	Histograms []*Histogram `json:"histograms,omitempty"`
	Warnings   []string     `json:"warnings,omitempty"`
}

// AnalyzeThreads parses a thread dump file and groups it in one call; see
// ParseThreadDumps for the formats and errors.
func AnalyzeThreads(r io.Reader) (*ThreadReport, error) {
	f, err := ParseThreadDumps(r)
	if err != nil {
		return nil, err
	}
	rep := &ThreadReport{Dumps: len(f.Dumps), Histograms: f.Histograms, Warnings: f.Warnings}
	rep.Groups = GroupThreads(f.Dumps[len(f.Dumps)-1])
	if len(f.Dumps) > 1 {
		rep.Diff = DiffThreads(GroupThreads(f.Dumps[0]), rep.Groups)
	}
	return rep, nil
}

// Markdown renders the report for a ticket: the last dump's groups (n ≤ 0: all), the
// change since the first dump, the histograms' headlines and the warnings.
func (r *ThreadReport) Markdown(n int) string {
	var b strings.Builder
	if r.Dumps > 1 {
		fmt.Fprintf(&b, "The file holds %d thread dumps; this is the last.\n\n", r.Dumps)
	}
	b.WriteString(r.Groups.Markdown(n))
	if r.Diff != nil {
		b.WriteString("\n")
		b.WriteString(r.Diff.Markdown(n))
	}
	for _, h := range r.Histograms {
		fmt.Fprintf(&b, "\nClass histogram at line %d: %s\n", h.Line, h.Headline())
	}
	javaMarkdownWarnings(&b, r.Warnings)
	return b.String()
}
