package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/capture"
)

// captureTool names leakui in a bundle's manifest.
const captureTool = "leakui capture"

// runCapture dispatches `leakui capture jvm|go`.
func runCapture(ctx context.Context, args []string, std stdio) error {
	kinds := []command{
		{"go", "a Go process's pprof endpoint: heap, goroutine, goroutineleak where served, memory statistics; -every and -count for several snapshots", runCaptureGo},
		{"jvm", "a JVM on this host: /proc status and smaps, NMT, heap, class histogram -all (no GC), threads, version, flags", runCaptureJVM},
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintln(std.err, "Usage: leakui capture jvm PID -o FILE.tar.gz | -push URL [-incident SLUG]\n       leakui capture go URL -o FILE.tar.gz | -push URL [-incident SLUG] [-every 30s -count 10]\n\nWhat:")
		for _, k := range kinds {
			fmt.Fprintf(std.err, "  %-5s %s\n", k.name, k.summary)
		}
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	k, ok := lookupCommand(kinds, args[0])
	if !ok {
		fmt.Fprintf(std.err, "leakui capture: capture jvm or go, not %q\n", args[0])
		return errUsage
	}
	return k.run(ctx, args[1:], std)
}

// parseInterleaved parses flags that may come before and after the
// positional arguments ("PID -o FILE"), as the capture commands are written.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// captureProgress writes the progress lines of a capture on stderr: one line
// per step, with its time, size or error.
type captureProgress struct {
	w     io.Writer
	total int
	done  int
}

func (p *captureProgress) step(s capture.Step, data []byte, err error) {
	p.done++
	what := s.Name
	if s.Snapshot > 0 {
		what = fmt.Sprintf("snapshot %d: %s", s.Snapshot, s.Name)
	}
	took := s.Finished.Sub(s.Started).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(p.w, "leakui capture: [%d/%d] %s FAILED after %s: %v\n", p.done, p.total, what, took, err)
		if s.Hint != "" {
			fmt.Fprintf(p.w, "leakui capture:        %s\n", s.Hint)
		}
		return
	}
	fmt.Fprintf(p.w, "leakui capture: [%d/%d] %s: %s in %s (%s)\n", p.done, p.total, what, analyze.FormatBytes(int64(len(data))), took, s.Command)
}

// writeBundle writes the bundle to path ("-": standard output) through a
// temporary file renamed at the end, so that a failed capture leaves no half
// bundle behind; it reports the steps that failed.
func writeBundle(w *capture.Writer, path string, std stdio) error {
	m := w.Manifest()
	failed := len(m.Failed())
	if failed == len(m.Steps) {
		return fmt.Errorf("every step failed; nothing written (the first: %s: %s)", m.Steps[0].Name, m.Steps[0].Error)
	}
	if path == "-" {
		return w.Write(std.out, time.Now())
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".leakui-capture-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := w.Write(tmp, time.Now()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	st, _ := os.Stat(path)
	size := int64(0)
	if st != nil {
		size = st.Size()
	}
	fmt.Fprintf(std.err, "leakui capture: wrote %s (%s, %d steps", path, analyze.FormatBytes(size), len(m.Steps))
	if failed > 0 {
		fmt.Fprintf(std.err, ", %d failed: see the manifest", failed)
	}
	fmt.Fprintln(std.err, "); upload it to leakui (curl -F file=@"+filepath.Base(path)+" …/api/artifacts) or open it with leakui nmt")
	return nil
}

// errNoOutput is the usage mistake of a capture without -o or -push.
var errNoOutput = errors.New("-o FILE.tar.gz or -push URL is required ('-o -' for standard output)")

// checkCaptureOutput checks where a capture goes: -o, -push or both, and the push
// flags, before anything is captured.
func checkCaptureOutput(out string, p *pushFlags) error {
	if out == "" && *p.url == "" {
		return errNoOutput
	}
	if out == "-" && *p.url != "" {
		return errors.New("-o - writes the bundle on standard output, where -push prints the report's URL: give -o a file or leave it out")
	}
	return p.check()
}

// hostName is the host named in a bundle's manifest.
func hostName() string {
	h, _ := os.Hostname()
	return strings.TrimSpace(h)
}
