package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/fixtures"
)

// The load test's length: -load-duration, else LEAKUI_LOAD_DURATION, else 6 s
// under CI (so that `go test ./...` stays within its budget) and 30 s elsewhere.
var loadDuration = flag.Duration("load-duration", 0, "how long TestLoad runs its clients (default: $LEAKUI_LOAD_DURATION, else 6s with CI=true, else 30s)")

func loadTestDuration(t *testing.T) time.Duration {
	if *loadDuration > 0 {
		return *loadDuration
	}
	if env := os.Getenv("LEAKUI_LOAD_DURATION"); env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d <= 0 {
			t.Fatalf("LEAKUI_LOAD_DURATION=%q: want a duration such as 30s", env)
		}
		return d
	}
	if os.Getenv("CI") == "true" {
		return 6 * time.Second
	}
	return 30 * time.Second
}

const (
	selfLoadClients = 50
	// selfLoadMaxRequests bounds the test by count as well as by time.
	selfLoadMaxRequests = 500_000
	// selfLoadHeapSlack is how much more heap (after a collection) the server may hold
	// after the load than before it: the caches of parsed profiles and pages
	// filled by a handful of small fixtures, far below their own bounds.
	selfLoadHeapSlack = 64 << 20
)

// loadOp is one kind of request of the mix.
type loadOp struct {
	name   string
	weight int
}

var loadMix = []loadOp{{"upload", 15}, {"report", 35}, {"json", 30}, {"markdown", 20}}

// loadStats collects latencies and statuses per kind of request.
type loadStats struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	statuses  map[int]int
	failures  []string
}

func (s *loadStats) add(op string, d time.Duration, status int, failure string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencies[op] = append(s.latencies[op], d)
	s.statuses[status]++
	if failure != "" && len(s.failures) < 20 {
		s.failures = append(s.failures, failure)
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// TestLoad runs 50 concurrent clients against a real `leakui serve` on loopback
// for the load duration (bounded by count too), mixing uploads of fixture
// profiles with report pages, JSON twins and Markdown summaries. It requires
// zero 5xx and no failed request, prints p50/p99 latency and throughput, and
// then checks that the server's goroutines come back to their baseline and its
// heap stays within a bound. leakui judges itself too: its own heap and
// goroutine profiles (-debug-pprof), taken before, during and after the load, go
// through pprof.Series, whose verdict must be "no steady growth".
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("the load test runs for seconds")
	}
	duration := loadTestDuration(t)
	dir := t.TempDir()
	// Every load client comes from one address: the cap per address lets them
	// all upload at once.
	s := startServer(t, dir, "-upload-rate", "-1", "-max-per-client", strconv.Itoa(selfLoadClients), "-debug-pprof", "127.0.0.1:0")
	for _, base := range []string{s.base, s.debug} {
		u, _ := url.Parse(base)
		if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
			t.Fatalf("%s is not a loopback address", base)
		}
	}
	var uploads [][]byte
	for _, name := range []string{"flameshow-heap.pb.gz", "parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t9-1644509299.pb.gz",
		"goprofnotes-goroutine-snap1-debug0.pb.gz", "flameshow-cpu-10s.pb.gz"} {
		body, _ := multipartUploadBoundary(t, "loadboundary", name, readFile(t, fixtures.Path(t, "pprof", name)))
		uploads = append(uploads, body)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: selfLoadClients, MaxConnsPerHost: selfLoadClients}
	client := &http.Client{Transport: transport, Timeout: 60 * time.Second}

	// Warm up: one report per fixture, and the pages of each once.
	var reportsMu sync.Mutex
	var reports []string
	for _, body := range uploads {
		a, _ := s.send(t, bytes.NewReader(body), "multipart/form-data; boundary=loadboundary", int64(len(body)), time.Minute)
		if a.Status != http.StatusCreated {
			t.Fatalf("warm-up upload: %d %s", a.Status, a.Raw)
		}
		reports = append(reports, a.ReportID)
		for _, p := range []string{"/r/" + a.ReportID, "/api/reports/" + a.ReportID, "/r/" + a.ReportID + ".md"} {
			if code, _ := s.get(t, p); code != 200 {
				t.Fatalf("warm-up GET %s: %d", p, code)
			}
		}
	}
	baseGoroutines := s.goroutines(t)
	s.collectGarbage(t)
	baseHeap := s.memStats(t)
	var heaps, goroutines [][]byte
	snapshot := func() {
		heaps = append(heaps, s.debugGet(t, "/debug/pprof/heap?gc=1"))
		goroutines = append(goroutines, s.debugGet(t, "/debug/pprof/goroutine"))
	}
	snapshot()

	stats := &loadStats{latencies: map[string][]time.Duration{}, statuses: map[int]int{}}
	var issued atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	for c := range selfLoadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if issued.Add(1) > selfLoadMaxRequests {
					return
				}
				op := pickOp(rng)
				reportsMu.Lock()
				id := reports[rng.IntN(len(reports))]
				reportsMu.Unlock()
				var req *http.Request
				switch op {
				case "upload":
					body := uploads[rng.IntN(len(uploads))]
					req, _ = http.NewRequest("POST", s.base+"/api/artifacts", bytes.NewReader(body))
					req.Header.Set("Content-Type", "multipart/form-data; boundary=loadboundary")
				case "report":
					req, _ = http.NewRequest("GET", s.base+"/r/"+id, nil)
				case "json":
					req, _ = http.NewRequest("GET", s.base+"/api/reports/"+id, nil)
				case "markdown":
					req, _ = http.NewRequest("GET", s.base+"/r/"+id+".md", nil)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					stats.add(op, time.Since(t0), 0, fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err))
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				failure := ""
				want := http.StatusOK
				if op == "upload" {
					want = http.StatusCreated
				}
				if resp.StatusCode != want {
					failure = fmt.Sprintf("%s %s: %d %.200s", req.Method, req.URL.Path, resp.StatusCode, b)
				}
				stats.add(op, d, resp.StatusCode, failure)
				if op == "upload" && resp.StatusCode == http.StatusCreated {
					if m := reportIDField.FindSubmatch(b); m != nil {
						reportsMu.Lock()
						reports = append(reports, string(m[1]))
						reportsMu.Unlock()
					}
				}
			}
		}()
	}
	// Snapshots during the load, then stop the clients. Ten: with fewer, a
	// real leak can pass for chance in the series analysis (growing in 6 of 6
	// steps happens by chance once in 5040 orderings, not rare enough among
	// tens of sites at its 0.001 threshold); with twelve snapshots in all, a
	// leak injected into a handler (a goroutine and 4 KiB per request) is
	// named in both the heap and the goroutine series.
	const during = 10
	for i := 1; i <= during; i++ {
		time.Sleep(duration / (during + 1))
		snapshot()
	}
	time.Sleep(duration - time.Since(start))
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	transport.CloseIdleConnections()

	// Report the figures.
	total := 0
	var all []time.Duration
	var lines []string
	for _, op := range loadMix {
		l := stats.latencies[op.name]
		total += len(l)
		all = append(all, l...)
		lines = append(lines, fmt.Sprintf("  %-8s %6d requests  p50 %8s  p99 %8s", op.name, len(l), percentile(l, 0.5).Round(time.Microsecond), percentile(l, 0.99).Round(time.Microsecond)))
	}
	t.Logf("load: %d clients, %s, %d requests, %.0f requests/s, p50 %s, p99 %s; statuses %v\n%s",
		selfLoadClients, elapsed.Round(time.Millisecond), total, float64(total)/elapsed.Seconds(),
		percentile(all, 0.5).Round(time.Microsecond), percentile(all, 0.99).Round(time.Microsecond), stats.statuses, strings.Join(lines, "\n"))
	for code, n := range stats.statuses {
		if code >= 500 || code == 0 {
			t.Errorf("%d requests answered %d", n, code)
		}
	}
	for _, f := range stats.failures {
		t.Errorf("failed: %s", f)
	}
	if total == 0 {
		t.Fatal("no request was made")
	}

	// Afterwards: goroutines back to the baseline, heap within its bound.
	var now int
	deadline := time.Now().Add(15 * time.Second)
	for now = s.goroutines(t); now > baseGoroutines && time.Now().Before(deadline); now = s.goroutines(t) {
		time.Sleep(100 * time.Millisecond)
	}
	if now > baseGoroutines {
		t.Errorf("the server has %d goroutines after the load, %d before:\n%s", now, baseGoroutines, s.debugGet(t, "/debug/pprof/goroutine?debug=1"))
	}
	s.collectGarbage(t)
	after := s.memStats(t)
	t.Logf("server: goroutines %d before, %d after; heap in use after a GC %d MiB before, %d MiB after; largest heap %d MiB",
		baseGoroutines, now, baseHeap.HeapAlloc>>20, after.HeapAlloc>>20, after.HeapSys>>20)
	if after.HeapAlloc > baseHeap.HeapAlloc+selfLoadHeapSlack {
		t.Errorf("the heap grew from %d to %d MiB over the load (bound +%d MiB)", baseHeap.HeapAlloc>>20, after.HeapAlloc>>20, selfLoadHeapSlack>>20)
	}
	snapshot()

	// leakui's own verdict on itself.
	for _, tc := range []struct {
		what  string
		snaps [][]byte
	}{{"heap", heaps}, {"goroutine", goroutines}} {
		var in []pprof.Snapshot
		for i, b := range tc.snaps {
			p, err := pprof.Open(pprof.Reader(bytes.NewReader(b)), pprof.Options{})
			if err != nil {
				t.Fatalf("%s snapshot %d: %v", tc.what, i, err)
			}
			in = append(in, pprof.Snapshot{Name: tc.what + "-" + strconv.Itoa(i), Profile: p})
		}
		rep, err := pprof.Series(in, series.Options{KeepOrder: true})
		if err != nil {
			t.Fatalf("%s series: %v", tc.what, err)
		}
		t.Logf("leakui on its own %s, %d snapshots (before, %d during, after): %s — %s; totals %v",
			tc.what, len(in), during, rep.VerdictText, rep.Reason, rep.Totals)
		if rep.Verdict != series.Steady {
			for _, sus := range rep.Suspects {
				t.Logf("  suspect %s: %v", sus.Name, sus.Values)
			}
			t.Errorf("%s: verdict %q, want %q", tc.what, rep.Verdict, series.Steady)
		}
	}
}

var reportIDField = regexp.MustCompile(`"report_id":\s*"([a-z0-9]+)"`)

func pickOp(rng *rand.Rand) string {
	n := rng.IntN(100)
	for _, op := range loadMix {
		if n < op.weight {
			return op.name
		}
		n -= op.weight
	}
	return loadMix[len(loadMix)-1].name
}

// goroutines counts the server's goroutines from its own goroutine profile,
// apart from the job system's: River's leader starts its maintenance services
// on its own schedule, seconds after the runner starts (and may do so during
// the load), and the jobs package's tests check that its runner stops them
// all. What is counted are the goroutines leakui's requests could leave
// behind.
func (s *server) goroutines(t *testing.T) int {
	t.Helper()
	b := s.debugGet(t, "/debug/pprof/goroutine?debug=1")
	head, rest, _ := bytes.Cut(b, []byte("\n"))
	total, err := strconv.Atoi(strings.TrimPrefix(string(head), "goroutine profile: total "))
	if err != nil {
		t.Fatalf("goroutine profile: %q", head)
	}
	n := 0
	// Each group is "COUNT @ PCS" and its frames, groups apart by a blank line.
	for _, group := range strings.Split(string(rest), "\n\n") {
		count, _, ok := strings.Cut(strings.TrimSpace(group), " @ ")
		c, err := strconv.Atoi(count)
		if !ok || err != nil {
			continue
		}
		if !strings.Contains(group, "github.com/riverqueue/river") {
			n += c
		}
	}
	if n == 0 || n > total {
		t.Fatalf("goroutine profile of %d goroutines read as %d outside the job system:\n%s", total, n, b)
	}
	return n
}

// debugGet fetches a path of the -debug-pprof endpoint.
func (s *server) debugGet(t *testing.T, path string) []byte {
	t.Helper()
	resp, err := http.Get(s.debug + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return b
}

// multipartUploadBoundary builds a one-file upload with a fixed boundary.
func multipartUploadBoundary(t *testing.T, boundary, name string, data []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
	buf.Write(data)
	buf.WriteString("\r\n--" + boundary + "--\r\n")
	return buf.Bytes(), "multipart/form-data; boundary=" + boundary
}
