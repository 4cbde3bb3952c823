package store

import (
	"encoding/json"
	"io"
	"time"
)

// Artifact is one stored file, identified by the SHA-256 of its bytes. The same
// bytes uploaded twice are one artifact.
type Artifact struct {
	SHA256 string
	// Kind is what analyze detected ("profile", "goroutines", "log", …).
	Kind string
	// Format is the detected format within the kind ("profile.proto", "debug=2", …).
	Format    string
	Size      int64
	CreatedAt time.Time
}

// Report is an immutable analysis record with a permanent, unguessable id.
type Report struct {
	ID string
	// Kind is the report's view: "profile", "diff", "series", "goroutines", "log", …
	Kind string
	// Params holds the parameters the report was created with (JSON object).
	Params json.RawMessage
	// Summary holds numbers computed when the report was created (JSON object),
	// for listings and Markdown summaries.
	Summary   json.RawMessage
	Artifacts []ReportArtifact
	CreatedAt time.Time
	// Pinned reports are kept by retention.
	Pinned bool
	// RunID names the lab run that produced the report, if any.
	RunID string
	// Status is ReportReady (the empty string) for a report whose summary is
	// complete, ReportAnalyzing while a background analysis computes it, and
	// ReportFailed when that analysis failed, Error telling why.
	Status string
	Error  string
	// Uploader is the client address a report was uploaded from, which the
	// disk quota per client counts (StoredBytes); CreateReport records it,
	// Report does not read it back.
	Uploader string
	// Headline is what the dashboard lists the report by (see Headliner).
	Headline Headline
	// Incidents are the incidents CreateReport attached the report to, from
	// its uploads' labels; Report does not read them back (IncidentsOf does).
	Incidents []string
}

// Headline is what the dashboard lists a report by, kept in columns of its own
// so that a list of reports never reads their summaries: its title, its verdict
// in a word, one line, and the size of its inputs (with its kind and time,
// which are columns of their own too).
type Headline struct {
	// Title is the report's first input's name, or what its run is called.
	Title string
	// Verdict is "leak", "no leak", … or "" for a report without one.
	Verdict string
	// Line says what the report found in one line.
	Line string
	// Terms are more words search finds the report by (the suspects, top
	// functions and classes its page shows), from the Headliner; the store
	// keeps them as tokens (search_terms) and does not give them back.
	Terms string
	// InputBytes is the size of the report's inputs, set by the store.
	InputBytes int64
	// Set tells that Verdict and Line were worked out: a report stored before
	// headlines were has none until BackfillHeadlines fills it.
	Set bool
}

// The states of a report (Report.Status).
const (
	// ReportReady is a report whose analysis is complete.
	ReportReady = ""
	// ReportAnalyzing is a report whose analysis runs (or waits) in the background.
	ReportAnalyzing = "analyzing"
	// ReportFailed is a report whose background analysis failed.
	ReportFailed = "failed"
)

// ReportArtifact is one input of a report, in order, with the name it was uploaded
// under.
type ReportArtifact struct {
	Artifact
	Name  string
	Label string
}

// Upload is an artifact to be stored with a new report: its metadata and a way to
// read its bytes. SHA256 and Size are what the caller computed while receiving the
// file; the store checks both against the bytes it writes.
type Upload struct {
	Name   string
	Label  string
	SHA256 string
	Size   int64
	Kind   string
	Format string
	// Open returns a fresh reader of the bytes; the store closes it. Leave it nil
	// to refer to an artifact that is already stored (a new report over old files).
	Open func() (io.ReadCloser, error)
}
