package web

import (
	"testing"
	"unicode/utf8"

	"github.com/leakui/leakui/internal/hostile"
)

// TestPagesAreValidUTF8: a function name of invalid UTF-8 is shown with U+FFFD,
// in the page as in the JSON, never as raw bytes in a page declared UTF-8.
func TestPagesAreValidUTF8(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, f := range []file{
		{"bad.pb.gz", hostile.Gzip(hostile.InvalidUTF8Profile())},
		{"bad.txt", []byte("goroutine 1 [chan receive]:\n" + hostile.InvalidUTF8Name + "(0x1)\n\t/src/\xffa.go:3 +0x1\n\n")},
	} {
		status, up, raw := ts.upload(t, f)
		if status != 201 {
			t.Fatalf("%s: %d %s", f.name, status, raw)
		}
		for _, path := range []string{up.ReportURL, up.ReportURL + "?view=flame", up.ReportURL + ".md", "/api/reports/" + up.ReportID, "/"} {
			code, _, body := ts.get(t, path)
			if code != 200 || !utf8.Valid(body) {
				t.Errorf("%s %s: %d, valid UTF-8 %v", f.name, path, code, utf8.Valid(body))
			}
		}
	}
}
