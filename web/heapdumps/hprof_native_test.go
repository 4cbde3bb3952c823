package heapdumps_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/javatest"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestHeapDumpNativeSection uploads a real dump taken with -all of a JVM
// holding 80 MiB of direct buffers and 2,000 GZIPInputStreams, most dropped
// unclosed (analyze/hprof/testdata/NativeHolders.java): the report page shows
// the native memory section itself, with the buffers' suspect sentence; its
// JSON twin counts the direct buffers and sums their capacities exactly as the
// JVM's buffer pool does, and says the dropped streams are reached only from
// the cleaner's queue or not at all.
func TestHeapDumpNativeSection(t *testing.T) {
	const streams, buffers, bufferMiB = 2000, 20, 4
	mapped := filepath.Join(t.TempDir(), "mapped.bin")
	jh := javatest.RunAll(t, "../../analyze/hprof/testdata/NativeHolders.java", false,
		[]string{"-Xms256m", "-Xmx256m", "-Xmn200m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=256m"},
		strconv.Itoa(streams), strconv.Itoa(buffers), strconv.Itoa(bufferMiB), mapped)
	raw, err := os.ReadFile(mapped + ".measured")
	if err != nil {
		t.Fatal(err)
	}
	var direct []string
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "direct" {
			direct = f[1:]
		}
	}
	data, err := os.ReadFile(jh.Dump)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, web.Config{})
	up := ts.MustUploadHeapDump(t, webtest.File{Name: "NativeHolders.hprof", Data: data})

	doc, _ := ts.Page(t, up.ReportURL)
	section := doc.Find(`[data-testid="native"]`)
	if section.Length() != 1 || !strings.Contains(section.Find(`[data-testid="native-sentence"]`).Text(), "java.nio.DirectByteBuffer") ||
		section.Find(`[data-testid="native-link"]`).AttrOr("href", "") != heapdumps.ViewURL(up.ReportID, "native") {
		t.Fatalf("the report's native memory section: %q", section.Text())
	}
	var nm heapdumps.NativeJSON
	ts.GetJSON(t, heapdumps.ViewURL(up.ReportID, "native")+".json", &nm)
	d := nm.Native.DirectBuffers
	if len(direct) != 2 || strconv.FormatInt(d.Count, 10) != direct[0] || strconv.FormatInt(d.Bytes, 10) != direct[1] {
		t.Errorf("direct buffers %+v; the JVM's pool: %v", d, direct)
	}
	in := nm.Native.Inflaters
	if in.Count < streams || in.Reach.PendingCleanup.Count+in.Reach.Unreachable.Count < streams/2 {
		t.Errorf("inflaters %+v: want %d, most only pending cleanup or unreachable", in, streams)
	}
	page, _ := ts.Page(t, heapdumps.ViewURL(up.ReportID, "native"))
	if got := page.Find(`[data-testid="native-row"]`).First().AttrOr("data-bytes", ""); got != direct[1] {
		t.Errorf("the native page's direct buffers hold %s bytes, the JVM's pool %s", got, direct[1])
	}
}
