package web

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestUploadRefusesTextThatIsNoLog: text of no kind that does not look like a
// log (fewer than 1 line in 5 with a timestamp or a level) is refused with a
// 415 that says what it is and lists the kinds leakui accepts, and nothing is
// stored: the README, a Go source file, a CSV table, binary garbage, and a
// log in UTF-16 without its byte order mark (which keeps its hint). Every
// real log of testdata is still accepted.
func TestUploadRefusesTextThatIsNoLog(t *testing.T) {
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var csv strings.Builder
	csv.WriteString("rank,instances,bytes,class\n")
	for _, line := range strings.Split(string(read(fixtures.Path(t, "jvm", "lambdas-jdk17-class-histogram.txt"))), "\n") {
		if f := strings.Fields(line); len(f) >= 4 && strings.HasSuffix(f[0], ":") {
			csv.WriteString(strings.TrimSuffix(f[0], ":") + "," + f[1] + "," + f[2] + "," + f[3] + "\n")
		}
	}
	var u16 []byte
	for _, u := range utf16.Encode([]rune(string(read(fixtures.Path(t, "logs", "loghub-HDFS_2k.log"))))) {
		u16 = binary.LittleEndian.AppendUint16(u16, u)
	}
	for _, tc := range []struct {
		name string
		data []byte
		msg  string
	}{
		{"README.md", read("../README.md"), "text, not a log ("},
		{"page.go", read("logs/page.go"), "text, not a log ("},
		{"classes.csv", []byte(csv.String()), "text, not a log ("},
		{"random.bin", read(fixtures.Path(t, "hostile", "random.bin")), "binary data"},
		{"hdfs-utf16.log", u16, "UTF-16LE text without a byte order mark"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, Config{})
			status, _, raw := ts.upload(t, file{tc.name, tc.data})
			var e struct{ Error string }
			if json.Unmarshal([]byte(raw), &e) != nil || status != 415 || !strings.Contains(e.Error, tc.msg) ||
				!strings.Contains(e.Error, "leakui accepts pprof profiles") || !strings.Contains(e.Error, "and logs") {
				t.Errorf("status %d %s; want 415 with %q and the kinds leakui accepts", status, raw, tc.msg)
			}
			if a, c, r, err := ts.db.Counts(t.Context()); err != nil || a+c+r != 0 {
				t.Errorf("a refused upload stored artifacts=%d chunks=%d reports=%d (%v)", a, c, r, err)
			}
		})
	}
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	for _, path := range fixtures.Glob(t, "logs", "*") {
		name := path[strings.LastIndex(path, "/")+1:]
		up := ts.mustUpload(t, nil, fixture(t, "logs", name))
		if len(up.Artifacts) != 1 || up.Artifacts[0].Kind != "log" {
			t.Errorf("%s: artifacts %+v, want one log", name, up.Artifacts)
		}
	}
}
