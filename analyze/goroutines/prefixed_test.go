package goroutines

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
)

// goroutineGroupsJSON parses b as Parse does for an upload and returns its groups as
// JSON, for comparing two readings of the same dump, with the dump.
func goroutineGroupsJSON(t *testing.T, b []byte) (string, *Dump) {
	t.Helper()
	d, err := Parse(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(Groups(d))
	if err != nil {
		t.Fatal(err)
	}
	return string(out), d
}

// goroutineSniff detects b's kind as the upload does: Decompress, then Sniff.
func goroutineSniff(t *testing.T, b []byte) analyze.Detection {
	t.Helper()
	rc, _, err := analyze.Decompress(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	d, err := analyze.Sniff(rc)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// goroutineWraps are the log collectors' line prefixes, each with a function that
// adds it to every line.
var goroutineWraps = map[string]func([]byte) []byte{
	analyze.PrefixKubectl:    fixtures.Kubectl,
	analyze.PrefixJournald:   fixtures.Journald,
	analyze.PrefixDockerJSON: fixtures.DockerJSON,
}

// TestGoroutineDumpPrefixed reads debug=2 dumps as log collectors keep them, every
// line behind a `kubectl logs --timestamps` time stamp, a journald prefix or in a
// Docker JSON record: the same groups as the bare dump, detected as a goroutine dump
// with the prefix named.
func TestGoroutineDumpPrefixed(t *testing.T) {
	for _, name := range []string{"goprofnotes-snap2-debug2.txt", "goleak-http-debug2-go121.txt", "gostackparse-waitsince.txt"} {
		orig := readGoroutineFixture(t, "goroutines", name)
		want, bare := goroutineGroupsJSON(t, orig)
		for prefix, wrap := range goroutineWraps {
			b := wrap(orig)
			got, d := goroutineGroupsJSON(t, b)
			if got != want || d.Total() != bare.Total() {
				t.Errorf("%s with %s prefixes: %d goroutines, groups differ from the bare dump's (%d goroutines)", name, prefix, d.Total(), bare.Total())
			}
			if det := goroutineSniff(t, b); det.Kind != analyze.KindGoroutines || det.Prefix != prefix {
				t.Errorf("%s with %s prefixes: detected %+v", name, prefix, det)
			}
		}
	}
}

// TestGoroutineSIGQUITInContainerLog puts the SIGQUIT dump of a real Go program 5 MB
// into a made-up container log (with more log after it), bare and with every line
// behind a log collector's prefix: the upload's sniffing finds the dump past the
// log, and Parse gives the groups of the bare dump.
func TestGoroutineSIGQUITInContainerLog(t *testing.T) {
	dump := goroutineCrashChild(t, "sigquit", "GOTRACEBACK=all")
	want, bare := goroutineGroupsJSON(t, dump)
	logBefore := fixtures.ContainerLog(5 << 20)
	logAfter := fixtures.ContainerLog(10 << 10)
	input := append(append(append([]byte{}, logBefore...), dump...), logAfter...)
	wraps := map[string]func([]byte) []byte{"": func(b []byte) []byte { return b }}
	for prefix, wrap := range goroutineWraps {
		wraps[prefix] = wrap
	}
	for prefix, wrap := range wraps {
		b := wrap(input)
		got, d := goroutineGroupsJSON(t, b)
		if got != want || d.Total() != bare.Total() {
			t.Errorf("prefix %q: %d goroutines, groups differ from the bare dump's (%d goroutines)", prefix, d.Total(), bare.Total())
		}
		det := goroutineSniff(t, b)
		lines := int64(bytes.Count(logBefore, []byte("\n")))
		if det.Kind != analyze.KindGoroutines || det.Format != "SIGQUIT" || det.Prefix != prefix || det.SkippedLines != lines {
			t.Errorf("prefix %q: detected %+v, want a SIGQUIT dump after %d lines", prefix, det, lines)
		}
		if prefix == "" && det.Skipped != int64(len(logBefore)) {
			t.Errorf("skipped %d bytes, want %d", det.Skipped, len(logBefore))
		}
	}
}
