package heapdumps_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestHeapDumpUpload uploads a real gzip-compressed heap dump and reads its report as
// a page, as JSON and as Markdown: the suspect is the consumers, held by their
// threads, with the path from the thread to the consumer.
func TestHeapDumpUpload(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, true, 5, 1<<20)
	up := ts.MustUploadHeapDump(t, dump)
	if len(up.Artifacts) != 1 || up.Artifacts[0].Kind != "jvm-heapdump" {
		t.Fatalf("artifacts %+v", up.Artifacts)
	}

	doc, _ := ts.Page(t, up.ReportURL+"?group=none")
	sentence := doc.Find(`[data-testid="suspect"][data-rank="1"] [data-testid="suspect-sentence"]`).Text()
	if !strings.HasPrefix(sentence, "5 instances of LeakShape$Consumer retain 5.0 MB") || !strings.Contains(sentence, "accumulated in threads KafkaConsumerProxy-") {
		t.Errorf("first suspect %q", sentence)
	}
	steps := doc.Find(`[data-testid="suspect"][data-rank="1"] [data-testid="path-step"]`)
	if steps.Length() != 2 || !strings.HasPrefix(steps.Eq(0).Find(`[data-testid="path-via"]`).Text(), "thread KafkaConsumerProxy-") ||
		steps.Eq(1).Find(`[data-testid="path-via"]`).Text() != ".consumer" {
		t.Errorf("path: %q", steps.Text())
	}
	if doc.Find(`[data-testid="headline"]`).Text() != sentence {
		t.Errorf("headline %q", doc.Find(`[data-testid="headline"]`).Text())
	}
	if n := doc.Find(`[data-testid="dominator"][data-level="0"]`).Length(); n == 0 || n > heapdumps.Rows {
		t.Errorf("%d dominator rows", n)
	}
	// Two levels below each thread, loaded from the stored index as the page's
	// expand buttons do: its consumer, then the consumer's buffer.
	thread := doc.Find(`[data-testid="dominators"] > [data-testid="dominator"][data-level="0"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`[data-testid="dominator-class"]`).Text() == "LeakShape$ConsumerThread"
	}).First()
	if thread.Find(`[data-testid="dominator-expand"]`).Length() != 1 {
		t.Fatalf("no expandable consumer thread at the top of the tree: %q", doc.Find(`[data-testid="dominators"]`).Text())
	}
	consumer := heapDomFragment(t, ts, up.ReportID, thread.AttrOr("data-node", ""), 1).Find(`[data-testid="dominator"]`).First()
	buffer := heapDomFragment(t, ts, up.ReportID, consumer.AttrOr("data-node", ""), 2).Find(`[data-testid="dominator"]`).First()
	if consumer.Find(`[data-testid="dominator-class"]`).Text() != "LeakShape$Consumer" || consumer.AttrOr("data-level", "") != "1" ||
		buffer.Find(`[data-testid="dominator-class"]`).Text() != "byte[]" || buffer.AttrOr("data-retained", "") != strconv.Itoa(16+1<<20) {
		t.Errorf("the dominator tree below a consumer thread: %q, then %q", consumer.Text(), buffer.Text())
	}
	if doc.Find(`[data-testid="histogram-row"]`).Length() != heapdumps.Rows {
		t.Errorf("%d histogram rows", doc.Find(`[data-testid="histogram-row"]`).Length())
	}

	code, _, body := ts.Get(t, "/api/reports/"+up.ReportID)
	if code != http.StatusOK {
		t.Fatalf("JSON: %d %s", code, body)
	}
	var got struct {
		Kind     string       `json:"kind"`
		Analysis hprof.Report `json:"analysis"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	s := got.Analysis.Suspects
	if got.Kind != heapdumps.ReportDump || len(s) == 0 || s[0].Holder != "LeakShape$Consumer" || s[0].HolderInstances != 5 || s[0].HolderRetained < 5<<20 {
		t.Errorf("JSON: %s", body)
	}

	code, _, md := ts.Get(t, up.ReportURL+".md")
	if code != http.StatusOK || !strings.Contains(string(md), "5 instances of `LeakShape$Consumer` retain") ||
		!strings.Contains(string(md), "via `.consumer` `LeakShape$Consumer`") {
		t.Errorf("Markdown: %d\n%s", code, md)
	}
}

// TestHeapDumpUploadRefused checks the answer to a comparison with a broken heap
// dump, analyzed in the upload: nothing is stored and the status says why (one
// broken dump alone is analyzed in the background: TestHeapDumpAnalysisFails).
func TestHeapDumpUploadRefused(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, false, 2, 4096)
	truncated := webtest.File{Name: "truncated.hprof", Data: dump.Data[:len(dump.Data)/2]}
	if code, _, raw := ts.Upload(t, dump, truncated); code != http.StatusUnprocessableEntity {
		t.Errorf("a dump compared with a truncated one: %d %s", code, raw)
	}
	reports, err := ts.DB.RecentReports(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 0 {
		t.Errorf("%d reports stored for refused uploads", len(reports))
	}
}

// TestHeapDumpSizeLimit checks that a heap dump has a limit of its own,
// -max-heapdump, beside -max-upload for everything else.
func TestHeapDumpSizeLimit(t *testing.T) {
	dump := webtest.LeakShapeDump(t, false, 2, 4096)
	size := int64(len(dump.Data))
	big := newTestServer(t, web.Config{MaxUpload: size / 4, MaxHeapDump: 2 * size})
	if code, _, raw := big.Upload(t, dump); code != http.StatusAccepted {
		t.Errorf("a %d-byte dump within -max-heapdump %d (over -max-upload %d): %d %s", size, 2*size, size/4, code, raw)
	}
	log := webtest.File{Name: "app.log", Data: []byte(strings.Repeat("INFO nothing to see here\n", int(size/4/25)+1000))}
	if code, _, raw := big.Upload(t, log); code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "-max-upload") {
		t.Errorf("a log over -max-upload: %d %s", code, raw)
	}
	small := newTestServer(t, web.Config{MaxUpload: size / 4, MaxHeapDump: size / 2})
	if code, _, raw := small.Upload(t, dump); code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "-max-heapdump") {
		t.Errorf("a dump over -max-heapdump: %d %s", code, raw)
	}
	if reports, err := small.DB.RecentReports(t.Context(), 10); err != nil || len(reports) != 0 {
		t.Errorf("%d reports stored after a refused dump (%v)", len(reports), err)
	}
}
