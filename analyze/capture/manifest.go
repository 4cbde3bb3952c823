package capture

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Format is the manifest's format field; ManifestName the manifest's name in
// the tar, always its first file.
const (
	Format       = "leakui-capture/1"
	ManifestName = "manifest.json"
)

// Kind is what a bundle captured.
type Kind string

// The kinds of bundles.
const (
	// KindJVM is `leakui capture jvm PID`: /proc and jcmd outputs of one JVM.
	KindJVM Kind = "jvm"
	// KindGo is `leakui capture go URL`: a Go process's pprof endpoint, one or
	// more snapshots.
	KindGo Kind = "go"
)

// The steps of a JVM capture, in the order they run. The /proc files come
// first, read at one instant; then NMT; then the heap's use and range; then the
// class histogram with -all (no GC: a full GC would let the Cleaner free the
// unreachable Inflaters whose native memory is the leak); then the threads, the
// version and the flags.
const (
	StepProcStatus     = "proc-status"
	StepSmapsRollup    = "proc-smaps-rollup"
	StepSmaps          = "proc-smaps"
	StepNMT            = "native-memory"
	StepHeapInfo       = "heap-info"
	StepClassHistogram = "class-histogram"
	StepThreads        = "threads"
	StepVersion        = "vm-version"
	StepFlags          = "vm-flags"
)

// The steps of a Go capture, each taken once per snapshot.
const (
	StepHeap          = "heap"
	StepGoroutine     = "goroutine"
	StepGoroutineLeak = "goroutineleak"
	StepMemStats      = "memstats"
)

// JVMSteps are a JVM capture's steps in order.
var JVMSteps = []string{StepProcStatus, StepSmapsRollup, StepSmaps, StepNMT, StepHeapInfo, StepClassHistogram, StepThreads, StepVersion, StepFlags}

// GoSteps are a Go capture's steps in order, for each snapshot.
var GoSteps = []string{StepHeap, StepGoroutine, StepGoroutineLeak, StepMemStats}

// Manifest is a bundle's manifest.json: what was captured, from which process,
// and every step with its times, its file and its error.
type Manifest struct {
	Format string `json:"format"`
	Kind   Kind   `json:"kind"`
	Target Target `json:"target"`
	// Tool is the program and version that wrote the bundle.
	Tool     string    `json:"tool"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Steps    []Step    `json:"steps"`
}

// Target is the captured process.
type Target struct {
	// Host is the name of the machine (or pod) the capture ran on.
	Host string `json:"host"`
	// PID is the JVM's process id; StartTicks its start time in clock ticks
	// since boot (/proc/PID/stat's 22nd field), which tells a restarted process
	// that got the same id from the one captured before.
	PID        int   `json:"pid,omitempty"`
	StartTicks int64 `json:"start_ticks,omitempty"`
	// URL is the Go process's pprof endpoint.
	URL string `json:"url,omitempty"`
}

// Step is one step of a capture.
type Step struct {
	Name string `json:"name"`
	// Snapshot numbers a Go capture's snapshots from 1 (0 for a JVM's steps).
	Snapshot int `json:"snapshot,omitempty"`
	// Command is what ran: the jcmd command line, the /proc path, the URL.
	Command  string    `json:"command"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// File is the step's output in the bundle; empty when the step failed.
	File  string `json:"file,omitempty"`
	Bytes int64  `json:"bytes"`
	// Error says why the step failed; Hint what to do about it (how to turn
	// Native Memory Tracking on, which user to run as).
	Error string `json:"error,omitempty"`
	Hint  string `json:"hint,omitempty"`
}

// Same tells whether two targets are one process: the same host and pid (and
// start time when both know it), or the same host and URL.
func (t Target) Same(o Target) bool {
	if t.Host != o.Host {
		return false
	}
	if t.URL != "" || o.URL != "" {
		return t.URL == o.URL
	}
	if t.StartTicks != 0 && o.StartTicks != 0 && t.StartTicks != o.StartTicks {
		return false
	}
	return t.PID == o.PID
}

// String names the target for messages: "pid 4242 on broker-1", "http://… on host".
func (t Target) String() string {
	what := fmt.Sprintf("pid %d", t.PID)
	if t.URL != "" {
		what = t.URL
	}
	if t.Host != "" {
		what += " on " + t.Host
	}
	return what
}

// maxManifestBytes bounds manifest.json; maxSteps its steps.
const (
	maxManifestBytes = 1 << 20
	maxSteps         = 4096
	maxNameBytes     = 100
)

// parseManifest decodes and checks a manifest: its format, kind and steps, and
// that every file it names is a plain name used once.
func parseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: capture bundle: manifest.json: %v", analyze.ErrMalformed, err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%w: capture bundle: manifest.json's format is %q; leakui reads %q", analyze.ErrUnsupportedKind, clip(m.Format), Format)
	}
	if m.Kind != KindJVM && m.Kind != KindGo {
		return nil, fmt.Errorf("%w: capture bundle: unknown kind %q (jvm or go)", analyze.ErrMalformed, clip(string(m.Kind)))
	}
	if len(m.Steps) > maxSteps {
		return nil, fmt.Errorf("%w: capture bundle: %d steps; at most %d", analyze.ErrTooLarge, len(m.Steps), maxSteps)
	}
	seen := map[string]bool{}
	for i, s := range m.Steps {
		if s.File == "" {
			continue
		}
		if err := checkName(s.File); err != nil {
			return nil, fmt.Errorf("%w: capture bundle: step %d (%s) names the file %q: %v", analyze.ErrMalformed, i+1, clip(s.Name), clip(s.File), err)
		}
		if seen[s.File] {
			return nil, fmt.Errorf("%w: capture bundle: the file %q is named by two steps", analyze.ErrMalformed, clip(s.File))
		}
		seen[s.File] = true
	}
	return &m, nil
}

// checkName accepts a plain file name: no directory, no "..", no absolute path,
// no backslash, no control character, at most maxNameBytes.
func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("not a file name")
	case len(name) > maxNameBytes:
		return fmt.Errorf("longer than %d bytes", maxNameBytes)
	case strings.ContainsAny(name, "/\\"):
		return fmt.Errorf("a path, not a plain file name")
	case path.Clean(name) != name:
		return fmt.Errorf("not a clean name")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("a control character")
		}
	}
	return nil
}

// clip shortens a string of a hostile file for a message.
func clip(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// Step returns the step called name of the given snapshot (0 for a JVM's).
func (m *Manifest) Step(name string, snapshot int) (Step, bool) {
	for _, s := range m.Steps {
		if s.Name == name && s.Snapshot == snapshot {
			return s, true
		}
	}
	return Step{}, false
}

// Snapshots is how many snapshots a Go capture took (1 for a JVM's).
func (m *Manifest) Snapshots() int {
	n := 1
	for _, s := range m.Steps {
		n = max(n, s.Snapshot)
	}
	return n
}

// Failed lists the steps that failed.
func (m *Manifest) Failed() []Step {
	var out []Step
	for _, s := range m.Steps {
		if s.Error != "" {
			out = append(out, s)
		}
	}
	return out
}
