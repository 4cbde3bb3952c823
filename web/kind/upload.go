package kind

import (
	"context"
	"os"

	"github.com/leakui/leakui/analyze"
)

// Received is one uploaded file, spooled to a temporary file while it is checked.
type Received struct {
	Name      string // the client's file name, reduced to a safe base name
	Path      string // the temporary file
	Size      int64
	SHA256    string
	Detection analyze.Detection
	// heapDump tells a JVM heap dump, which has a size limit of its own.
	HeapDump bool
}

// Upload is a parsed upload request.
type Upload struct {
	Files  []*Received
	Label  string
	Fields map[string]string // other small form fields (patterns, presets, …)
	// ctx is the upload request's context while the files are planned, for
	// planners that read files to their end (logs).
	Ctx context.Context
	// client is the uploader's address (clientKey), for the disk quota and
	// the heap dump queue.
	Client string
}

// Remove deletes the temporary files.
func (f *Upload) Remove() {
	for _, r := range f.Files {
		os.Remove(r.Path)
	}
}

// Plan is what an upload becomes: a report of one kind over the files.
type Plan struct {
	Kind    string
	Params  map[string]any
	Summary any
	// background stores the report as analyzing, its analysis queued
	// (heapdumps.Jobs) to complete the summary after the upload has answered.
	Background bool
}

type Artifact struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Format string `json:"format,omitempty"`
	// Encoding is "UTF-16LE" or "UTF-16BE" for a file transcoded to UTF-8.
	Encoding string `json:"encoding,omitempty"`
	// Prefix names the line prefix stripped from a dump ("kubectl logs --timestamps").
	Prefix string `json:"prefix,omitempty"`
	// SkippedLines and SkippedBytes are the log before a dump found far into a file.
	SkippedLines int64  `json:"skipped_lines,omitempty"`
	SkippedBytes int64  `json:"skipped_bytes,omitempty"`
	Size         int64  `json:"size"`
	URL          string `json:"url"`
}
