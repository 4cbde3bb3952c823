package kind

import (
	"encoding/json"
	"time"

	"github.com/leakui/leakui/analyze/pprof"
)

// ReportJSON is the JSON twin of a report page.
type ReportJSON struct {
	ID          string            `json:"id"`
	Kind        string            `json:"kind"`
	CreatedAt   time.Time         `json:"created_at"`
	URL         string            `json:"url"`
	MarkdownURL string            `json:"markdown_url"`
	Params      json.RawMessage   `json:"params"`
	Summary     json.RawMessage   `json:"summary"`
	Artifacts   []Artifact        `json:"artifacts"`
	Profile     *ProfileJSON      `json:"profile,omitempty"`
	Diff        *DiffJSON         `json:"diff,omitempty"`
	Flame       *pprof.FlameGraph `json:"flame,omitempty"`
	Notices     []string          `json:"notices,omitempty"`
	// Status is "analyzing" or "failed" for a report whose background analysis
	// has not completed it (absent for a complete one), Progress how far it is or
	// why it failed.
	Status   string `json:"status,omitempty"`
	Progress any    `json:"progress,omitempty"`
	// Analysis holds the result of the report kinds that have no field of their
	// own (goroutines, logs, JVM dumps, runs).
	Analysis any `json:"analysis,omitempty"`
}

// DiffJSON is a diff report's analysis for one sample type.
type DiffJSON struct {
	Base   string           `json:"base"`
	Target string           `json:"target"`
	Result pprof.DiffResult `json:"result"`
}

// ProfileJSON is a profile report's analysis for one sample type.
type ProfileJSON struct {
	Format      string             `json:"format"`
	Time        *time.Time         `json:"time,omitempty"`
	DurationNs  int64              `json:"duration_ns,omitempty"`
	Samples     int                `json:"samples"`
	SampleTypes []pprof.SampleType `json:"sample_types"`
	Top         pprof.TopResult    `json:"top"`
}
