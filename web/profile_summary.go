package web

import "github.com/leakui/leakui/analyze"

// profileSummary is stored with a profile report: the numbers a listing or a ticket
// needs without parsing the profile again.
type profileSummary struct {
	Format      string               `json:"format"`
	SampleTypes []analyze.SampleType `json:"sample_types"`
	Default     string               `json:"default_sample_type"`
	Samples     int                  `json:"samples"`
}

func profileSummaryOf(p *analyze.Profile) profileSummary {
	types := p.SampleTypes()
	return profileSummary{Format: p.Format, SampleTypes: types, Default: types[p.DefaultSampleIndex()].Type, Samples: p.Samples()}
}
