package analyze

import (
	"fmt"
	"io"
	"strings"
)

// JavaThreadReport is what a page shows about one uploaded thread dump file: the
// groups of its last dump, what changed since its first dump when it holds several
// (a script that runs jstack three times into one file), and the class histograms
// printed with the dumps.
type JavaThreadReport struct {
	// Dumps is the number of dumps in the file.
	Dumps int `json:"dumps"`
	// Groups is the grouped view of the last dump.
	Groups *JavaThreadGroups `json:"groups"`
	// Diff compares the first dump with the last; nil for a file of one dump.
	Diff       *JavaThreadDiff  `json:"diff,omitempty"`
	Histograms []*JavaHistogram `json:"histograms,omitempty"`
	Warnings   []string         `json:"warnings,omitempty"`
}

// AnalyzeJavaThreads parses a thread dump file and groups it in one call; see
// ParseJavaThreadDumps for the formats and errors.
func AnalyzeJavaThreads(r io.Reader) (*JavaThreadReport, error) {
	f, err := ParseJavaThreadDumps(r)
	if err != nil {
		return nil, err
	}
	rep := &JavaThreadReport{Dumps: len(f.Dumps), Histograms: f.Histograms, Warnings: f.Warnings}
	rep.Groups = GroupJavaThreads(f.Dumps[len(f.Dumps)-1])
	if len(f.Dumps) > 1 {
		rep.Diff = DiffJavaThreads(GroupJavaThreads(f.Dumps[0]), rep.Groups)
	}
	return rep, nil
}

// Markdown renders the report for a ticket: the last dump's groups (n ≤ 0: all), the
// change since the first dump, the histograms' headlines and the warnings.
func (r *JavaThreadReport) Markdown(n int) string {
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
