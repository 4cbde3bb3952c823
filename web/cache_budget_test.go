package web

import (
	"net/http"
	"testing"
)

// cachedBytes is what the server's caches hold of its budget, cache by cache.
func (s *Server) cachedBytes() map[string]int64 { return s.caches.Charged() }

func sumBytes(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// TestCachedViewsAreChargedAndDroppedUnderPressure: the parsed goroutine dump
// and its report, the parsed JVM thread dump and the counted log that views keep
// are each charged to the server's budget, which then holds exactly the sum of
// the caches' entries. With the rest of the budget held by other analyses, the
// upload of another dump is answered 201, not 503: the cached entries are
// dropped to make room and the budget's use by the caches falls.
func TestCachedViewsAreChargedAndDroppedUnderPressure(t *testing.T) {
	ts := newTestServer(t, Config{})
	var urls []string
	for _, f := range []file{
		fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt"),
		fixture(t, "jvm", "sjk-jstack-jdk8-hazelcast-160threads.txt"),
		fixture(t, "logs", "loghub-HDFS_2k.log"),
	} {
		urls = append(urls, ts.mustUpload(t, nil, f).ReportURL)
	}
	for _, u := range urls {
		if code, _, body := ts.get(t, u); code != http.StatusOK {
			t.Fatalf("%s: %d %.200s", u, code, body)
		}
	}
	cached := ts.srv.cachedBytes()
	for _, name := range []string{"goroutine dumps", "goroutine reports", "jvm", "logs"} {
		if cached[name] <= 0 {
			t.Errorf("the %s cache holds %d bytes of the budget after the views", name, cached[name])
		}
	}
	if used, sum := ts.srv.budget.Used(), sumBytes(cached); used != sum {
		t.Errorf("the budget holds %d bytes, the caches' entries cost %d (%v)", used, sum, cached)
	}

	others := ts.srv.budget.Child(0)
	if err := others.Charge(ts.srv.budget.Remaining() - 1024); err != nil {
		t.Fatal(err)
	}
	defer others.Release()
	before := sumBytes(cached)
	if code, _, raw := ts.upload(t, fixture(t, "goroutines", "goprofnotes-snap2-debug2.txt")); code != http.StatusCreated {
		t.Fatalf("an upload while the budget is held by others and the caches: %d %.300s, want 201", code, raw)
	}
	after := ts.srv.cachedBytes()
	if sumBytes(after) >= before {
		t.Errorf("the caches hold %d bytes after the upload under pressure, %d before: nothing was dropped", sumBytes(after), before)
	}
	if used, want := ts.srv.budget.Used(), others.Used()+sumBytes(after); used != want {
		t.Errorf("the budget holds %d bytes, the others %d and the caches %d", used, others.Used(), sumBytes(after))
	}
}
