package analyze

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestDetectKindFixtures checks every shared fixture against the kind its folder and
// PROVENANCE.md give it.
func TestDetectKindFixtures(t *testing.T) {
	want := map[string]Kind{"pprof": KindProfile, "logs": KindLog}
	for dir, kind := range want {
		for _, path := range fixtures.Glob(t, dir, "*") {
			if got := detectFile(t, path); got.Kind != kind {
				t.Errorf("%s: detected %v, want %s", filepath.Base(path), got, kind)
			}
		}
	}
	for _, path := range fixtures.Glob(t, "goroutines", "*") {
		if got := detectFile(t, path); got.Kind != KindGoroutines {
			t.Errorf("%s: detected %v, want goroutines", filepath.Base(path), got)
		}
	}
	java := map[string]Kind{
		"nmt-summary-jdk17-bytes.txt":                   KindJVMNMT,
		"nmt-summary-jdk8-1529threads-KB.txt":           KindJVMNMT,
		"jthreaddump-jstack-deadlock.txt":               KindJVMThreads,
		"sjk-jstack-jdk8-hazelcast-160threads.txt":      KindJVMThreads,
		"tda-jdk15-threaddump-with-class-histogram.log": KindJVMThreads,
		"tda-jstack-jdk21-macos.log":                    KindJVMThreads,
		"tda-jstack-jdk8-openjdk.log":                   KindJVMThreads,
		"tda-threaddump-hpux-jdk15-jeus-large.log":      KindJVMThreads,
	}
	for name, kind := range java {
		if got := detectFile(t, fixtures.Path(t, "jvm", name)); got.Kind != kind {
			t.Errorf("%s: detected %v, want %s", name, got, kind)
		}
	}
}

func detectFile(t *testing.T, path string) Detection {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, _, err := Decompress(f, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rc.Close()
	head := make([]byte, SniffSize)
	n, _ := ioReadFull(rc, head)
	return DetectKind(head[:n])
}

func TestDetectKindWrongKinds(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		kind     Kind
		format   string
	}{
		{"html", "<!DOCTYPE html><html><body>hi</body></html>", KindUnknown, "an HTML page"},
		{"json", `{"a": [1, 2, 3]}`, KindUnknown, "a JSON document"},
		{"elf", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", KindUnknown, "an ELF executable"},
		{"garbage", "\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11", KindUnknown, "binary data"},
		{"log with NUL and invalid UTF-8", "2020-01-01 00:00:00 a line\x00 with \xff\xfe bytes\nsecond line\n", KindLog, ""},
		{"json-looking log", "{not json} 2020-01-01 00:00:00 started\n", KindLog, ""},
		{"panic", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x.go:3 +0x1\n", KindGoroutines, "panic"},
		{"go1.22 header", "goroutine 1 gp=0xc000002380 m=0 mp=0x1 [running]:\nmain.main()\n\t/x.go:3 +0x1\n", KindGoroutines, "goroutine dump"},
		{"go1.22 header without an m", "goroutine 7 gp=0xc000102a80 m=nil [chan receive]:\nmain.f()\n\t/x.go:3 +0x1\n", KindGoroutines, "goroutine dump"},
		{"histogram", " num     #instances         #bytes  class name (module)\n-------------------------------------------------------\n   1:          1000         100000  [B (java.base@17)\n", KindJVMHistogram, "class histogram"},
	} {
		got := DetectKind([]byte(tc.in))
		if got.Kind != tc.kind || (tc.format != "" && got.Format != tc.format) {
			t.Errorf("%s: detected %+v, want %s %q", tc.name, got, tc.kind, tc.format)
		}
	}
}

func TestDecompressLimitAndNesting(t *testing.T) {
	var inner bytes.Buffer
	zw := gzip.NewWriter(&inner)
	zw.Write(bytes.Repeat([]byte{0}, 10<<20))
	zw.Close()
	rc, c, err := Decompress(bytes.NewReader(inner.Bytes()), 1<<20)
	if err != nil || c != CompressionGzip {
		t.Fatalf("Decompress: %v, %q", err, c)
	}
	n, err := ioCopyDiscard(rc)
	rc.Close()
	if !isErr(err, ErrTooLarge) || n != 1<<20 {
		t.Errorf("a 10 MiB bomb under a 1 MiB cap: read %d bytes, err %v; want exactly 1 MiB then ErrTooLarge", n, err)
	}

	var outer bytes.Buffer
	zw = gzip.NewWriter(&outer)
	zw.Write(inner.Bytes())
	zw.Close()
	if _, _, err := Decompress(bytes.NewReader(outer.Bytes()), 0); !isErr(err, ErrUnsupportedKind) || !strings.Contains(err.Error(), "gzip inside gzip") {
		t.Errorf("gzip of gzip: err %v, want ErrUnsupportedKind naming gzip inside gzip", err)
	}

	trunc := inner.Bytes()[:inner.Len()/2]
	rc, _, err = Decompress(bytes.NewReader(trunc), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ioCopyDiscard(rc)
	rc.Close()
	if !isErr(err, ErrMalformed) {
		t.Errorf("truncated gzip: err %v, want ErrMalformed", err)
	}

	if _, _, err := Decompress(bytes.NewReader(nil), 0); !isErr(err, ErrEmpty) {
		t.Errorf("empty: err %v, want ErrEmpty", err)
	}
}

// TestUTF16WithoutMarkIsNamed: text in UTF-16 without its byte order mark
// (which a JVM tool on Windows may write) is detected as such, whatever its
// first character passes for (a '2' is a profile.proto field), so that the
// messages say what it is and how to convert it; with the mark it is read.
func TestUTF16WithoutMarkIsNamed(t *testing.T) {
	text := []byte("2025-12-21 11:28:51\nFull thread dump OpenJDK 64-Bit Server VM (17.0.9+9 mixed mode):\n\n\"main\" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable\n")
	encode := func(be bool) []byte {
		var out []byte
		for _, u := range utf16.Encode([]rune(string(text))) {
			if be {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
		return out
	}
	for _, tc := range []struct {
		be   bool
		want string
	}{{false, "UTF-16LE text without a byte order mark"}, {true, "UTF-16BE text without a byte order mark"}} {
		d := DetectKind(encode(tc.be))
		if d.Kind != KindUnknown || !strings.Contains(d.String(), tc.want) || !strings.Contains(d.String(), "iconv") {
			t.Errorf("big-endian %v: %s (%s), want %q", tc.be, d, d.Kind, tc.want)
		}
	}
	if d := DetectKind(text); d.Kind != KindJVMThreads {
		t.Errorf("the UTF-8 text: %s", d)
	}
	// A profile.proto of empty repeated fields has the same bytes as UTF-16
	// text of one character, but no words.
	for _, pair := range []string{"2\x00", "\"\x00"} {
		if d := DetectKind([]byte(strings.Repeat(pair, 2000))); d.Format != "profile.proto" {
			t.Errorf("%q repeated: %s", pair, d)
		}
	}
	rc, _, err := Decompress(bytes.NewReader(append([]byte{0xff, 0xfe}, encode(false)...)), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if d, err := Sniff(rc); err != nil || d.Kind != KindJVMThreads || d.Encoding != EncodingUTF16LE {
		t.Errorf("with the mark: %+v, %v", d, err)
	}
}
