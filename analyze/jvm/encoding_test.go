package jvm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// parseDecompressed parses b as the upload and the CLI do: through
// analyze.Decompress, which transcodes UTF-16, and returns the file and the
// encoding Decompress found.
func parseDecompressed(t *testing.T, b []byte) (*ThreadFile, string) {
	t.Helper()
	rc, _, err := analyze.Decompress(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tf, err := ParseThreadDumps(rc)
	if err != nil {
		t.Fatal(err)
	}
	return tf, analyze.EncodingOf(rc)
}

// groupsJSON is the grouping of a file's first dump, as JSON, for comparing two
// readings of the same dump.
func groupsJSON(t *testing.T, tf *ThreadFile) string {
	t.Helper()
	b, err := json.Marshal(GroupThreads(tf.Dumps[0]))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestThreadsUTF16MatchesIconv parses the UTF-16LE and UTF-16BE copies of a
// jstack dump: each holds as many threads as `iconv -f UTF-16 -t UTF-8 | grep -c
// '^"'` counts, and groups exactly as the UTF-8 original.
func TestThreadsUTF16MatchesIconv(t *testing.T) {
	orig, err := os.ReadFile(fixtures.Path(t, "jvm", "tda-jstack-jdk8-openjdk.log"))
	if err != nil {
		t.Fatal(err)
	}
	origFile, _ := parseDecompressed(t, orig)
	for name, enc := range map[string]string{
		"tda-jstack-jdk8-openjdk-utf16le.log": analyze.EncodingUTF16LE,
		"tda-jstack-jdk8-openjdk-utf16be.log": analyze.EncodingUTF16BE,
	} {
		path := fixtures.Path(t, "jvm", name)
		want := greptest.CountWith(t, "-a", "--", `^"`, greptest.UTF8Copy(t, "UTF-16", path))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tf, got := parseDecompressed(t, b)
		if got != enc {
			t.Errorf("%s: encoding %q, want %q", name, got, enc)
		}
		if int64(tf.Threads()) != want || want == 0 {
			t.Errorf("%s: %d threads, iconv + grep count %d", name, tf.Threads(), want)
		}
		if groupsJSON(t, tf) != groupsJSON(t, origFile) {
			t.Errorf("%s: groups differ from the UTF-8 original's", name)
		}
		rc, _, err := analyze.Decompress(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatal(err)
		}
		d, err := analyze.Sniff(rc)
		rc.Close()
		if err != nil || d.Kind != analyze.KindJVMThreads || d.Encoding != enc {
			t.Errorf("%s: detected %+v", name, d)
		}
	}
}

// TestThreadsPrefixed parses jstack dumps as log collectors keep them, every
// line behind a `kubectl logs --timestamps` time stamp, a journald prefix or in a
// Docker JSON record: the same threads in the same groups as the bare dump, and
// detected as a thread dump with the prefix named.
func TestThreadsPrefixed(t *testing.T) {
	for _, name := range []string{"tda-jstack-jdk8-openjdk.log", "sjk-jstack-jdk8-hazelcast-160threads.txt", "jthreaddump-jstack-deadlock.txt"} {
		orig, err := os.ReadFile(fixtures.Path(t, "jvm", name))
		if err != nil {
			t.Fatal(err)
		}
		bare, _ := parseDecompressed(t, orig)
		for prefix, wrap := range map[string]func([]byte) []byte{
			analyze.PrefixKubectl: fixtures.Kubectl, analyze.PrefixJournald: fixtures.Journald, analyze.PrefixDockerJSON: fixtures.DockerJSON,
		} {
			b := wrap(orig)
			tf, _ := parseDecompressed(t, b)
			if tf.Threads() != bare.Threads() || groupsJSON(t, tf) != groupsJSON(t, bare) {
				t.Errorf("%s with %s prefixes: %d threads, groups equal %v; bare: %d threads", name, prefix,
					tf.Threads(), groupsJSON(t, tf) == groupsJSON(t, bare), bare.Threads())
			}
			if d := analyze.DetectKind(b); d.Kind != analyze.KindJVMThreads || d.Prefix != prefix {
				t.Errorf("%s with %s prefixes: detected %+v", name, prefix, d)
			}
		}
	}
}

// jvmUTF16 returns b as UTF-16 with a byte order mark, little- or big-endian.
func jvmUTF16(b []byte, be bool) []byte {
	out := []byte{0xff, 0xfe}
	if be {
		out = []byte{0xfe, 0xff}
	}
	for _, u := range utf16.Encode([]rune(string(b))) {
		if be {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// TestHistogramAndNMTUTF16 reads a class histogram and NMT summaries in UTF-16
// (both byte orders) through analyze.Decompress: the same values as the UTF-8
// files, detected as their kinds with the encoding named.
func TestHistogramAndNMTUTF16(t *testing.T) {
	read := func(b []byte, parse func(io.Reader) (any, error)) (string, analyze.Detection) {
		t.Helper()
		rc, _, err := analyze.Decompress(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		br := bufio.NewReader(rc)
		head, _ := br.Peek(analyze.SniffSize)
		det := analyze.DetectKind(head)
		det.Encoding = analyze.EncodingOf(rc)
		v, err := parse(br)
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(out), det
	}
	histograms := func(r io.Reader) (any, error) { return ParseHistograms(r) }
	nmts := func(r io.Reader) (any, error) { return ParseNMTs(r) }
	for _, tc := range []struct {
		name  string
		kind  analyze.Kind
		parse func(io.Reader) (any, error)
	}{
		{"tda-jdk15-threaddump-with-class-histogram.log", analyze.KindJVMThreads, histograms},
		{"nmt-summary-jdk17-bytes.txt", analyze.KindJVMNMT, nmts},
		{"nmt-summary-jdk8-1529threads-KB.txt", analyze.KindJVMNMT, nmts},
	} {
		orig, err := os.ReadFile(fixtures.Path(t, "jvm", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(orig) {
			t.Fatalf("%s is not UTF-8", tc.name)
		}
		want, _ := read(orig, tc.parse)
		for _, be := range []bool{false, true} {
			got, det := read(jvmUTF16(orig, be), tc.parse)
			enc := analyze.EncodingUTF16LE
			if be {
				enc = analyze.EncodingUTF16BE
			}
			if got != want || det.Kind != tc.kind || det.Encoding != enc {
				t.Errorf("%s in %s: detected %+v; values equal the UTF-8 file's: %v", tc.name, enc, det, got == want)
			}
		}
	}
}
