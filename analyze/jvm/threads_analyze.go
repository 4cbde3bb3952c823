package jvm

import (
	"io"

	"github.com/leakui/leakui/analyze"
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
	return AnalyzeThreadsWithin(r, nil)
}

// AnalyzeThreadsWithin is AnalyzeThreads within a memory budget (nil:
// unbounded); see ParseThreadDumpsWithin.
func AnalyzeThreadsWithin(r io.Reader, budget *analyze.Budget) (*ThreadReport, error) {
	f, err := ParseThreadDumpsWithin(r, budget)
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
