package web

import (
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
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
	p, ok := ts.srv.profiles.Get(up.Artifacts[0].SHA256)
	if !ok {
		t.Fatal("the uploaded profile is not in the cache")
	}
	if used := ts.srv.budget.Used(); used != p.MemSize() {
		t.Errorf("the budget holds %d bytes, the cached profile is %d", used, p.MemSize())
	}
	ts.srv.profiles.Clear()
	if used := ts.srv.budget.Used(); used != 0 {
		t.Errorf("the budget holds %d bytes after the cache was cleared", used)
	}
}

// TestTextUploadsBeyondTheBudgetAre413: a goroutine dump and a class histogram
// within the upload and decompression limits whose parse needs more than one
// analysis's budget are answered 413 naming -memory-budget, and leave the budget
// free; with the server's budget held by other analyses, a small dump is answered
// 503 with Retry-After (ErrBusy), and once they are done, 201.
func TestTextUploadsBeyondTheBudgetAre413(t *testing.T) {
	const budget = 64 << 20 // an analysis's: 32 MB, and so is -max-decompressed
	ts := newTestServer(t, Config{MemoryBudget: budget})
	for name, data := range map[string][]byte{
		"goroutines.txt.gz": hostile.GoroutineBomb(300_000), // 24 MB of text
		"histo.txt.gz":      hostile.HistogramBomb(600_000), // 24 MB of text
	} {
		code, _, raw := ts.upload(t, file{name, data})
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "memory budget of 32.0 MB") || !strings.Contains(raw, "-memory-budget") {
			t.Errorf("%s: %d %.300s, want 413 naming the analysis's budget of 32.0 MB and -memory-budget", name, code, raw)
		}
		if used := ts.srv.budget.Used(); used != 0 {
			t.Errorf("%s: the budget still holds %d bytes", name, used)
		}
	}

	others := ts.srv.budget.Child(0)
	if err := others.Charge(ts.srv.budget.Remaining() - 1024); err != nil {
		t.Fatal(err)
	}
	small := file{"small.txt", hostile.HostileNamesDump()}
	body, ct := multipartBody(t, []file{small}, nil)
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a dump while the server's budget is held: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	others.Release()
	if code, _, raw := ts.upload(t, small); code != http.StatusCreated {
		t.Errorf("the dump once the budget is free: %d %.300s", code, raw)
	}
}

// TestFilteredViewsAreChargedToTheBudget: the copy a filter makes of a cached
// profile is charged to the request's budget: with the server's budget held by
// other analyses a filtered view drops the cached profile to make room (the
// budget then holds the others' charge alone) and answers 200; the next view,
// which has to parse the profile again with nothing left to drop, answers 503.
// When the others are done the filtered view answers 200 and gives its charge
// back (the budget holds the cached profile alone).
func TestFilteredViewsAreChargedToTheBudget(t *testing.T) {
	ts := newTestServer(t, Config{MemoryBudget: 256 << 20})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	cached := ts.srv.budget.Used()
	others := ts.srv.budget.Child(0)
	if err := others.Charge(ts.srv.budget.Remaining() - 1024); err != nil {
		t.Fatal(err)
	}
	if code, _, body := ts.get(t, up.ReportURL+"?f=badger"); code != http.StatusOK {
		t.Errorf("a filtered view while the budget is held: %d %.200s, want 200 (the cached profile dropped)", code, body)
	}
	if used := ts.srv.budget.Used(); used != others.Used() {
		t.Errorf("the budget holds %d after the filtered view, the others %d: the cached profile was not dropped", used, others.Used())
	}
	if code, _, body := ts.get(t, up.ReportURL+"?f=badger"); code != http.StatusServiceUnavailable {
		t.Errorf("a filtered view with nothing cached while the budget is held: %d %.200s, want 503", code, body)
	}
	others.Release()
	if code, _, body := ts.get(t, up.ReportURL+"?f=badger"); code != http.StatusOK {
		t.Errorf("the filtered view once the budget is free: %d %.200s", code, body)
	}
	if used := ts.srv.budget.Used(); used != cached {
		t.Errorf("the budget holds %d after the filtered view, the cached profile %d", used, cached)
	}
}

// TestLogCountsReserveTheirBoundInTheBudget: a log count charges the most its
// tables and buffers can hold before it reads anything, so on a server whose
// analyses may hold less than that an upload of a small log is answered 413
// naming -memory-budget, and the budget is free afterwards.
func TestLogCountsReserveTheirBoundInTheBudget(t *testing.T) {
	ts := newTestServer(t, Config{MemoryBudget: 16 << 20}) // an analysis's: 8 MB
	var log strings.Builder
	for i := range 1000 {
		log.WriteString("2024-05-01T12:00:00.000Z INFO request " + strconv.Itoa(i) + " served\n")
	}
	code, _, raw := ts.upload(t, file{"app.log", []byte(log.String())})
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(raw, "memory budget of 8.0 MB") || !strings.Contains(raw, "-memory-budget") {
		t.Errorf("a log on a server of 16 MB: %d %.300s, want 413 naming the analysis's budget of 8.0 MB", code, raw)
	}
	if used := ts.srv.budget.Used(); used != 0 {
		t.Errorf("the budget still holds %d bytes", used)
	}
}
