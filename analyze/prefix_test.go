package analyze

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/fixtures"
)

// prefixWraps are the log collectors' prefixes with a function that adds each to
// every line.
var prefixWraps = map[string]func([]byte) []byte{
	PrefixKubectl:    fixtures.Kubectl,
	PrefixJournald:   fixtures.Journald,
	PrefixDockerJSON: fixtures.DockerJSON,
}

// stripAll reads b through StripLinePrefix one byte at a time.
func stripAll(t *testing.T, b []byte, prefix string) []byte {
	t.Helper()
	out, err := io.ReadAll(StripLinePrefix(iotest.OneByteReader(bytes.NewReader(b)), prefix))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLinePrefixes detects and strips each collector's prefix from a goroutine
// dump, giving back the dump byte for byte; plain logs and dumps have none.
func TestLinePrefixes(t *testing.T) {
	dump := []byte("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n\ngoroutine 7 [chan receive, 3 minutes]:\nmain.worker(0xc000010000)\n\t/src/main.go:30 +0x2a\ncreated by main.main in goroutine 1\n\t/src/main.go:20 +0x55\n")
	for prefix, wrap := range prefixWraps {
		b := wrap(dump)
		if got := DetectLinePrefix(b); got != prefix {
			t.Errorf("%s: detected prefix %q", prefix, got)
		}
		if got := stripAll(t, b, prefix); !bytes.Equal(got, dump) {
			t.Errorf("%s: stripped to %q", prefix, got)
		}
		if d := DetectKind(b); d.Kind != KindGoroutines || d.Prefix != prefix {
			t.Errorf("%s: detected %+v", prefix, d)
		}
	}
	for _, plain := range [][]byte{dump, []byte("INFO one\nWARN two\nERROR three\n"), []byte("2024-05-01T10:00:00Z one\n")} {
		if got := DetectLinePrefix(plain); got != "" {
			t.Errorf("%q: detected prefix %q", plain, got)
		}
	}
	kubectlLog := fixtures.Kubectl([]byte("INFO one\nWARN two\nERROR three\n"))
	if d := DetectKind(kubectlLog); d.Kind != KindLog || d.Prefix != "" {
		t.Errorf("a log with kubectl prefixes: %+v", d)
	}
	// A line without the prefix passes through; a Docker record that is not JSON too.
	mixed := []byte("2024-05-01T10:00:00Z a\nno prefix\n2024-05-01T10:00:00.5+02:00 \n")
	if got := stripAll(t, mixed, PrefixKubectl); string(got) != "a\nno prefix\n\n" {
		t.Errorf("mixed kubectl lines: %q", got)
	}
	docker := []byte(`{"log":"a\u0009\"b\"\n","stream":"stderr"}` + "\n" + `{"log":"cut` + "\n" + `{"log":"part","stream":"stdout"}` + "\n" + `{"log":" two\n"}` + "\n")
	if got := stripAll(t, docker, PrefixDockerJSON); string(got) != "a\t\"b\"\n{\"log\":\"cut\npart two\n" {
		t.Errorf("Docker records: %q", got)
	}
}

// TestStripLinePrefixLongLine passes the rest of a line longer than the buffer
// through unchanged and strips the lines after it.
func TestStripLinePrefixLongLine(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 3*prefixLineBuffer)
	b := append(append([]byte("2024-05-01T10:00:00Z "), long...), "\n2024-05-01T10:00:00Z next\n"...)
	want := append(append([]byte{}, long...), "\nnext\n"...)
	if got := stripAll(t, b, PrefixKubectl); !bytes.Equal(got, want) {
		t.Errorf("%d bytes, want %d", len(got), len(want))
	}
}

// FuzzStripLinePrefix strips each prefix from arbitrary text and from the text
// wrapped in it: stripping never panics, streaming one byte at a time gives what
// stripping the whole text gives, a time stamp prefix only ever shortens the text,
// and wrapping then stripping gives the text back (with a final line feed; Docker
// JSON for valid UTF-8, which JSON keeps).
func FuzzStripLinePrefix(f *testing.F) {
	f.Add([]byte("goroutine 1 [running]:\nmain.main()\n\t/x.go:1\n"))
	f.Add([]byte("2024-05-01T10:00:00Z a\nMay 01 10:00:00 h app[1]: b\n{\"log\":\"c\\n\"}\n"))
	f.Add([]byte("\r\n\n\"x\" tid=0x1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		DetectLinePrefix(data)
		for prefix, wrap := range prefixWraps {
			got := stripAll(t, data, prefix)
			if len(data) < prefixLineBuffer && !bytes.Equal(got, stripHead(data, prefix)) {
				t.Fatalf("%s: streamed %q, whole %q", prefix, got, stripHead(data, prefix))
			}
			if prefix != PrefixDockerJSON && len(got) > len(data) {
				t.Fatalf("%s: %d bytes out of %d", prefix, len(got), len(data))
			}
			if len(data) == 0 || len(data) > prefixLineBuffer/2 || (prefix == PrefixDockerJSON && !utf8.Valid(data)) {
				continue
			}
			want := data
			if want[len(want)-1] != '\n' {
				want = append(append([]byte{}, data...), '\n')
			}
			if back := stripAll(t, wrap(data), prefix); !bytes.Equal(back, want) {
				t.Fatalf("%s: wrapped and stripped %q, want %q", prefix, back, want)
			}
		}
	})
}
