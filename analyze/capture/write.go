package capture

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Writer builds a bundle: the steps are added as they run, and Write writes the
// manifest first, then each step's output, as a gzip-compressed tar.
type Writer struct {
	m     Manifest
	files []entry
}

type entry struct {
	name string
	data []byte
	at   time.Time
}

// NewWriter starts a bundle of the given kind and target; tool names the
// program that writes it.
func NewWriter(kind Kind, target Target, tool string, started time.Time) *Writer {
	return &Writer{m: Manifest{Format: Format, Kind: kind, Target: target, Tool: tool, Started: started.UTC()}}
}

// FileName is the name of a step's output in a bundle: "native-memory.txt" for
// a JVM's, "heap-003.pb.gz" for a Go capture's third snapshot.
func FileName(step string, snapshot int) string {
	ext := ".txt"
	switch step {
	case StepHeap, StepGoroutine, StepGoroutineLeak:
		ext = ".pb.gz"
	case StepMemStats:
		ext = ".json"
	}
	if snapshot > 0 {
		return fmt.Sprintf("%s-%03d%s", step, snapshot, ext)
	}
	return step + ext
}

// Add records a step. With err nil, data is its output, stored under
// FileName; with err set, the step is recorded as failed with the error (and
// the hint, when there is one), and data is dropped.
func (w *Writer) Add(s Step, data []byte, err error) {
	s.Started, s.Finished = s.Started.UTC(), s.Finished.UTC()
	if err != nil {
		s.Error, s.File, s.Bytes = err.Error(), "", 0
	} else {
		s.File, s.Bytes = FileName(s.Name, s.Snapshot), int64(len(data))
		w.files = append(w.files, entry{s.File, data, s.Finished})
	}
	w.m.Steps = append(w.m.Steps, s)
}

// Manifest is the manifest so far.
func (w *Writer) Manifest() *Manifest { return &w.m }

// Write writes the bundle to out, finishing the manifest at finished.
func (w *Writer) Write(out io.Writer, finished time.Time) error {
	w.m.Finished = finished.UTC()
	manifest, err := json.MarshalIndent(w.m, "", "  ")
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	all := append([]entry{{ManifestName, append(manifest, '\n'), w.m.Finished}}, w.files...)
	for _, e := range all {
		// USTAR, times in whole seconds: the manifest's header is the first
		// block, as analyze.DetectKind looks for it (PAX would put an
		// extended header first for sub-second times).
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), ModTime: e.at.Truncate(time.Second), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}
