package profiles

import (
	"encoding/json"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/web/page"
)

// profileSummary is stored with a profile report: the numbers a listing or a ticket
// needs without parsing the profiles again (those of the last profile for a diff or
// a series).
type profileSummary struct {
	Format      string             `json:"format"`
	SampleTypes []pprof.SampleType `json:"sample_types"`
	Default     string             `json:"default_sample_type"`
	Samples     int                `json:"samples"`
	Profiles    int                `json:"profiles,omitempty"`
	// Verdict is a series' verdict ("leak", "steady", "shrinking") over its
	// default sample type, as its page shows it unfiltered.
	Verdict string `json:"verdict,omitempty"`
	// Title is what the dashboard lists a diff or a series by ("12 heap
	// snapshots · heap-00…heap-11"), "" for one profile (its file name).
	Title string `json:"title,omitempty"`
	// Functions are the names of the top table's first page.DefaultRows rows
	// (the last profile's, of the default sample type, by flat), which the
	// dashboard's search finds the report by.
	Functions []string `json:"functions,omitempty"`
}

// Listing is the dashboard's title of a diff or a series and the functions of
// its top table, for search (kind.Lister).
func (s *Kind) Listing(raw json.RawMessage) (title, terms string) {
	var sum profileSummary
	if json.Unmarshal(raw, &sum) != nil {
		return "", ""
	}
	return sum.Title, strings.Join(sum.Functions, " ")
}

// maxListedFunction is the most bytes of a function name a summary keeps.
const maxListedFunction = 512

// topFunctions are the names of the first rows of p's top table of its default
// sample type, as its page shows them first; none when the table cannot be
// computed (the page says why).
func topFunctions(p *pprof.Profile) []string {
	top, err := p.Top(p.DefaultSampleIndex())
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range top.Rows[:min(len(top.Rows), page.DefaultRows)] {
		name := r.Name
		if len(name) > maxListedFunction {
			name = strings.ToValidUTF8(name[:maxListedFunction], "")
		}
		out = append(out, name)
	}
	return out
}

// listingTitle names a diff or a series by what it is and its first and last
// files without their common extension: "12 heap snapshots · heap-00…heap-11",
// "CPU diff · before → after"; "" for one profile.
func listingTitle(names []string, defaultType string) string {
	n := len(names)
	if n < 2 {
		return ""
	}
	first, last := names[0], names[n-1]
	if i := strings.Index(first, "."); i > 0 && strings.HasSuffix(last, first[i:]) && len(last) > len(first[i:]) {
		first, last = first[:i], strings.TrimSuffix(last, first[i:])
	}
	what := profileNoun(defaultType)
	if n == 2 {
		return what + " diff · " + first + " → " + last
	}
	return analyze.Plural(int64(n), what+" snapshot") + " · " + first + "…" + last
}

// profileNoun is what a profile of a default sample type is of: "heap",
// "goroutine", "CPU", else the sample type.
func profileNoun(defaultType string) string {
	switch defaultType {
	case "inuse_space", "inuse_objects", "alloc_space", "alloc_objects", "space", "objects":
		return "heap"
	case "goroutine", "goroutineleak":
		return "goroutine"
	case "cpu", "samples":
		return "CPU"
	case "contentions", "delay":
		return "contention"
	}
	return defaultType
}

func profileSummaryOf(p *pprof.Profile) profileSummary {
	types := p.SampleTypes()
	return profileSummary{Format: p.Format, SampleTypes: types, Default: types[p.DefaultSampleIndex()].Type, Samples: p.Samples()}
}

func decodeProfileSummary(raw json.RawMessage) (profileSummary, bool) {
	var s profileSummary
	return s, json.Unmarshal(raw, &s) == nil && len(s.SampleTypes) > 0
}

// typeNames joins the sample type names, such as "alloc_objects/…/inuse_space".
func (s profileSummary) typeNames() string {
	names := make([]string, len(s.SampleTypes))
	for i, st := range s.SampleTypes {
		names[i] = st.Type
	}
	return strings.Join(names, "/")
}
