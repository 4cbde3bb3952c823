package profiles

import (
	"encoding/json"
	"strings"

	"github.com/leakui/leakui/analyze/pprof"
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
