package heapdumps_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestHeapDumpsQueueRoundRobinByUploader holds the analysis slot while
// 127.0.0.2 uploads three heap dumps and then 127.0.0.3 one: the second
// address's waits behind the running analysis only, not behind the first's
// queue; the first address's fourth is refused (429 naming
// -max-queued-per-client) with nothing stored; and once the slot is free
// the analyses run in that order.
func TestHeapDumpsQueueRoundRobinByUploader(t *testing.T) {
	ts := newTestServer(t, web.Config{MaxQueuedPerClient: 3, UploadsPerMinute: -1})
	dump := webtest.LeakShapeDump(t, false, 3, 64<<10)
	variant := func(k int) webtest.File {
		f := webtest.File{Name: "dump.hprof", Data: slices.Clone(dump.Data)}
		for range k { // another sha256: trailing records
			f.Data = append(f.Data, dump.Data[len(dump.Data)-9:]...)
		}
		return f
	}
	var mu sync.Mutex
	var order []string
	heapdumps.StageHook = func(_ context.Context, id, _ string) {
		mu.Lock()
		defer mu.Unlock()
		if len(order) == 0 || order[len(order)-1] != id {
			order = append(order, id)
		}
	}
	t.Cleanup(func() { heapdumps.StageHook = nil })
	release := webtest.Hold(t, heapdumps.Analyses)
	upload := func(from string, k int) (int, string) {
		t.Helper()
		code, raw := ts.UploadFrom(t, from, variant(k))
		var up webtest.Uploaded
		json.Unmarshal([]byte(raw), &up)
		return code, up.ReportID
	}
	var first []string
	for k := range 3 {
		code, id := upload("127.0.0.2", k)
		if code != http.StatusAccepted {
			t.Fatalf("heap dump %d from 127.0.0.2: %d", k+1, code)
		}
		first = append(first, id)
	}
	artifacts, _, _, _ := ts.DB.Counts(t.Context())
	code, raw := ts.UploadFrom(t, "127.0.0.2", variant(3))
	if code != http.StatusTooManyRequests || !strings.Contains(raw, "-max-queued-per-client") {
		t.Errorf("a fourth heap dump from 127.0.0.2: %d %s, want 429 naming -max-queued-per-client", code, raw)
	}
	if a, _, _, _ := ts.DB.Counts(t.Context()); a != artifacts {
		t.Errorf("the refused heap dump was stored (%d artifacts, were %d)", a, artifacts)
	}
	code, second := upload("127.0.0.3", 4)
	if code != http.StatusAccepted {
		t.Fatalf("a heap dump from 127.0.0.3: %d", code)
	}
	queue := func(id string) int { return reportAnalysis(t, ts, id).Progress.Queue }
	if q := []int{queue(first[1]), queue(first[2]), queue(second)}; !slices.Equal(q, []int{2, 3, 1}) {
		t.Errorf("analyses before 127.0.0.2's second and third and 127.0.0.3's first: %v, want [2 3 1]", q)
	}
	release()
	for _, id := range append(first, second) {
		if st := waitAnalysis(t, ts, id); st.Status != "done" {
			t.Errorf("report %s ended %+v", id, st)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{first[0], second, first[1], first[2]}; !slices.Equal(order, want) {
		t.Errorf("the analyses ran in the order %v, want %v (127.0.0.3's second)", order, want)
	}
}
