package web

import (
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
)

// heapAllocated is the bytes this process has allocated on the heap so far.
func heapAllocated() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestUploadOfAmplifyingProfileIs413 (issue 21, B1): valid profile.proto of a few
// hundred kilobytes that decodes to gigabytes is answered 413 naming the memory
// budget, having allocated less than the budget; the budget is free again and
// the dashboard answers.
func TestUploadOfAmplifyingProfileIs413(t *testing.T) {
	const budget = 256 << 20
	ts := newTestServer(t, Config{MemoryBudget: budget})
	for name, data := range map[string][]byte{"line-bomb.pb.gz": hostile.LineBomb(), "empty-strings.pb.gz": hostile.EmptyStringsBomb()} {
		runtime.GC()
		before := heapAllocated()
		code, _, raw := ts.upload(t, file{name, data})
		grew := heapAllocated() - before
		t.Logf("%s (%d bytes): %d %s; %d bytes allocated", name, len(data), code, raw, grew)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "memory budget of 128.0 MB") {
			t.Errorf("%s: %d %s, want 413 naming the analysis's budget of 128 MB", name, code, raw)
		}
		if grew > budget {
			t.Errorf("%s: %d bytes allocated, more than the server's budget of %d", name, grew, budget)
		}
		if used := ts.srv.budget.Used(); used != 0 {
			t.Errorf("%s: the budget still holds %d bytes", name, used)
		}
		if code, _, _ := ts.get(t, "/"); code != http.StatusOK {
			t.Errorf("the dashboard answers %d after %s", code, name)
		}
	}
}

// TestCachedProfilesAreChargedToTheBudget: a parsed profile kept in the cache
// holds its size of the server's budget; one that does not fit is not kept.
func TestCachedProfilesAreChargedToTheBudget(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	p, ok := ts.srv.profiles.get(up.Artifacts[0].SHA256)
	if !ok {
		t.Fatal("the uploaded profile is not in the cache")
	}
	if used := ts.srv.budget.Used(); used != p.MemSize() {
		t.Errorf("the budget holds %d bytes, the cached profile is %d", used, p.MemSize())
	}
	ts.srv.profiles.clear()
	if used := ts.srv.budget.Used(); used != 0 {
		t.Errorf("the budget holds %d bytes after the cache was cleared", used)
	}
}
