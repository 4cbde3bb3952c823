package web

import (
	"strings"
	"testing"
)

// TestLogSaysErrorsAndWarningsFirst: a log's overview names its ERROR and WARN
// lines and their most frequent templates before its most frequent messages,
// which are mostly INFO.
func TestLogSaysErrorsAndWarningsFirst(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	up := ts.mustUpload(t, nil, fixture(t, "logs", "loghub-Zookeeper_2k.log"))
	pg := goroutinePage(t, ts, up.ReportURL)
	notices := pg.Find("[data-testid=overview-notice]")
	if notices.Length() < 2 {
		t.Fatalf("%d notices before the templates: %q", notices.Length(), notices.Text())
	}
	// grep -c ' ERROR ' and ' WARN ' of the file: 13 and 1,318.
	if got := notices.First().Text(); !strings.HasPrefix(got, "Errors and warnings: 13 ERROR, 1,318 WARN lines in ") {
		t.Errorf("first notice %q", got)
	}
	if got := notices.Eq(1).Text(); !strings.HasPrefix(got, "314 × WARN: ") || !strings.Contains(got, "Interrupted while waiting for message on queue") {
		t.Errorf("second notice %q, want the most frequent WARN template", got)
	}
}
