package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
)

// peakRSS is a process's peak resident memory (VmHWM of /proc/PID/status), or
// 0 where there is no /proc.
func peakRSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestMemoryAttacksAnswerWithinBudget runs the memory attacks against a real
// `leakui serve` under GOMEMLIMIT=1GiB and -memory-budget 768 MiB: amplifying
// profiles, valid profile.proto of a few hundred kB that decodes to gigabytes (one Location of
// 200 M empty Lines; 100 MiB of empty strings), must answer 413 naming the budget,
// and so must a goroutine dump and a class histogram that are small gzipped and
// need more than an analysis's budget once parsed;
// flame views of a diff of two 40 MB profiles, each with a fresh filter and
// four at once, must each answer 200 or 503 (slots taken) without taking the
// server down. Pages must keep answering meanwhile. The server's peak heap and
// peak RSS and the pages' slowest answer are logged, not asserted (timing).
func TestMemoryAttacksAnswerWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads two 40 MB profiles")
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	const budget = 768 << 20
	s := startServer(t, t.TempDir(), "-upload-rate", "-1", "-memory-budget", strconv.Itoa(budget), "-debug-pprof", "127.0.0.1:0")
	pid := s.cmd.Process.Pid
	var log strings.Builder
	record := func(what string, took time.Duration, heap uint64, probe *liveProbe) {
		pages := probe.end()
		fmt.Fprintf(&log, "%-40s %8s  heap in use at most %4d MiB  peak RSS %4d MiB  pages: %d answers, median %s, slowest %s\n",
			what, took.Round(time.Millisecond), heap>>20, peakRSS(pid)>>20, pages.pages, pages.median.Round(time.Millisecond), pages.utmost.Round(time.Millisecond))
		if len(pages.failures) > 0 {
			t.Errorf("%s: pages failed meanwhile: %v", what, pages.failures)
		}
	}

	// Amplifying profiles.
	for name, data := range map[string][]byte{"one Location of 200 M Lines": hostile.LineBomb(), "100 MiB of empty strings": hostile.EmptyStringsBomb()} {
		s.collectGarbage(t)
		watch, probe := s.watchHeap(t), startLiveProbe(s.base, nil)
		body, ct := multipartUpload(t, part{name: "attack.pb.gz", data: data})
		a, took := s.send(t, bytes.NewReader(body), ct, int64(len(body)), time.Minute)
		record(name, took, watch.end(), probe)
		if a.Status != http.StatusRequestEntityTooLarge || !strings.Contains(a.Error, "memory budget") {
			t.Errorf("%s: %d %.300s, want 413 naming the memory budget", name, a.Status, a.Raw)
		}
	}

	// Text that is modest on the wire and large once parsed: each kind's parser
	// charges what it keeps, so an upload within -max-decompressed (384 MiB
	// here) that needs more than one analysis's budget (384 MiB) is refused
	// with 413 naming -memory-budget after reading part of it.
	for _, row := range []struct {
		name, file string
		data       []byte
	}{
		{"goroutine dump of 2 M goroutines (170 MB)", "goroutines.txt.gz", hostile.GoroutineBomb(2_000_000)},
		{"class histogram of 4 M rows (170 MB)", "histo.txt.gz", hostile.HistogramBomb(4_000_000)},
	} {
		s.collectGarbage(t)
		watch, probe := s.watchHeap(t), startLiveProbe(s.base, nil)
		body, ct := multipartUpload(t, part{name: row.file, data: row.data})
		a, took := s.send(t, bytes.NewReader(body), ct, int64(len(body)), time.Minute)
		record(row.name, took, watch.end(), probe)
		if a.Status != http.StatusRequestEntityTooLarge || !strings.Contains(a.Error, "-memory-budget") {
			t.Errorf("%s: %d %.300s, want 413 naming -memory-budget", row.name, a.Status, a.Raw)
		}
	}

	// Diff flame views: a diff of two 40 MB profiles, then its flame view with fresh filters.
	depth := 10 // 1,048,576 stacks, 40 MB
	if raceEnabled {
		depth = 8 // the same attack on 65,536 stacks: the race detector makes the test's own work slow
	}
	body, ct := multipartUpload(t, part{name: "base.pb.gz", data: hostile.Gzip(hostile.ManyStacks(depth, 0))}, part{name: "target.pb.gz", data: hostile.Gzip(hostile.ManyStacks(depth, 1))})
	s.collectGarbage(t)
	watch, probe := s.watchHeap(t), startLiveProbe(s.base, nil)
	a, took := s.send(t, bytes.NewReader(body), ct, int64(len(body)), 5*time.Minute)
	record(fmt.Sprintf("upload of two profiles of 4^%d stacks", depth), took, watch.end(), probe)
	if a.Status != http.StatusCreated {
		t.Fatalf("the diff upload: %d %.300s", a.Status, a.Raw)
	}
	for round := range 2 {
		watch, probe := s.watchHeap(t), startLiveProbe(s.base, nil)
		start := time.Now()
		var wg sync.WaitGroup
		statuses := make([]int, 4)
		for i := range statuses {
			wg.Go(func() {
				client := &http.Client{Timeout: 2 * time.Minute}
				resp, err := client.Get(fmt.Sprintf("%s?view=flame&h=nothing%d-%d", a.ReportURL, round, i)) // report_url is absolute
				if err != nil {
					t.Errorf("flame view: %v", err)
					return
				}
				resp.Body.Close()
				statuses[i] = resp.StatusCode
				if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After")
				}
			})
		}
		wg.Wait()
		record(fmt.Sprintf("4 diff flame views, fresh h= (%d)", round), time.Since(start), watch.end(), probe)
		for _, st := range statuses {
			if st != http.StatusOK && st != http.StatusServiceUnavailable {
				t.Errorf("a diff flame view answered %d, want 200 or 503", st)
			}
		}
		fmt.Fprintf(&log, "    statuses %v\n", statuses)
	}
	if code, _ := s.get(t, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d after the attacks", code)
	}
	t.Logf("memory attacks on leakui serve (GOMEMLIMIT=1GiB, -memory-budget %d MiB):\n%s", budget>>20, log.String())
}
