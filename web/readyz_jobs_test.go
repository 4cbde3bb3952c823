package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/leakui/leakui/web/background"
)

// TestReadyzShowsTheJobQueues holds the analysis slot while two heap dumps
// are uploaded: /readyz's JSON shows the heap dump queue with one analysis
// running (waiting for the slot) and one available, and stays ready; once
// the analyses are done, the queue is empty.
func TestReadyzShowsTheJobQueues(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	dump := leakShapeDump(t, false, 2, 4096)
	release := holdAnalyses(t)
	var ids []string
	for k := range 2 {
		f := file{name: "dump.hprof", data: append([]byte{}, dump.data...)}
		for range k { // another sha256: a trailing record
			f.data = append(f.data, dump.data[len(dump.data)-9:]...)
		}
		code, up, raw := ts.upload(t, f)
		if code != http.StatusAccepted {
			t.Fatalf("upload %d: %d %s", k+1, code, raw)
		}
		ids = append(ids, up.ReportID)
	}
	queue := func() (int, background.QueueState) {
		code, h := healthOf(t, ts, "/readyz")
		for _, q := range h.Jobs {
			if q.Name == HeapDumpQueue {
				return code, q
			}
		}
		t.Fatalf("/readyz shows no %s queue: %+v", HeapDumpQueue, h.Jobs)
		return code, background.QueueState{}
	}
	var code int
	var q background.QueueState
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if code, q = queue(); q.Running == 1 {
			break
		}
	}
	if code != http.StatusOK || q.Running != 1 || q.Available != 1 || q.Retryable != 0 || q.Workers != 1 {
		t.Errorf("/readyz with one analysis held and one waiting: %d %+v", code, q)
	}
	release()
	for _, id := range ids {
		if st := ts.waitAnalysis(t, id); st.Status != "done" {
			t.Fatalf("report %s ended %+v", id, st)
		}
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, q = queue(); q.Running+q.Available == 0 {
			break
		}
	}
	if q.Running+q.Available+q.Retryable != 0 {
		t.Errorf("/readyz once the analyses are done: %+v", q)
	}
}
