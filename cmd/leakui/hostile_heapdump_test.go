package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// hostileDump is a valid heap dump of a pathological shape, written by
// internal/hostile.
type hostileDump struct {
	name  string
	write func(io.Writer) error
}

// hostileDumps are the valid dumps that took a server down when everything a
// heap dump report stores and shows grew with the dump: a reference chain and
// a ring of a million objects, one array of ten million references, a class
// hierarchy a hundred thousand classes deep, twenty thousand zlib streams held
// through finalizers and a list; then, to store ten such reports, the chain
// dumped last first, and smaller ones of each other shape. With -short, each is
// a tenth of its size.
func hostileDumps() []hostileDump {
	scale := 1
	if testing.Short() {
		scale = 10
	}
	m := 1_000_000 / scale
	return []hostileDump{
		{fmt.Sprintf("chain of %d", m), func(w io.Writer) error { return hostile.ChainDump(w, m, false, false) }},
		{fmt.Sprintf("ring of %d", m), func(w io.Writer) error { return hostile.ChainDump(w, m, true, false) }},
		{fmt.Sprintf("array of %d references", 10*m), func(w io.Writer) error { return hostile.WideArrayDump(w, 10*m, m/10) }},
		{fmt.Sprintf("hierarchy %d classes deep", m/10), func(w io.Writer) error { return hostile.DeepClassesDump(w, m/10) }},
		{fmt.Sprintf("%d zlib streams", 20_000/scale), func(w io.Writer) error { return hostile.NativeHolderDump(w, 20_000/scale, 512) }},
		{fmt.Sprintf("chain of %d, last first", m), func(w io.Writer) error { return hostile.ChainDump(w, m, false, true) }},
		{fmt.Sprintf("ring of %d", m/4), func(w io.Writer) error { return hostile.ChainDump(w, m/4, true, true) }},
		{fmt.Sprintf("array of %d references", m), func(w io.Writer) error { return hostile.WideArrayDump(w, m, m/100) }},
		{fmt.Sprintf("hierarchy %d classes deep", m/40), func(w io.Writer) error { return hostile.DeepClassesDump(w, m/40) }},
		{fmt.Sprintf("%d zlib streams", 5_000/scale), func(w io.Writer) error { return hostile.NativeHolderDump(w, 5_000/scale, 4096) }},
	}
}

// Bounds every view of a hostile heap dump report keeps.
const (
	maxViewBytes  = 2 << 20 // a page, its JSON, its Markdown, a dominators page
	maxHprofBytes = 1 << 20 // the text of leakui hprof
	// maxAnalysisHeap bounds the server's Go heap in use while it analyzes a
	// dump: its memory budget (half of GOMEMLIMIT=1GiB), of which one analysis
	// may charge half; the rest is the server's own and garbage not collected
	// yet. A report that stored its paths whole took 872 MiB on the million-long
	// chain.
	maxAnalysisHeap = 512 << 20
)

// heapReportDoc is what the suite reads of a report's JSON.
type heapReportDoc struct {
	Status   string `json:"status"`
	Progress *struct {
		Error string `json:"error"`
	} `json:"progress"`
	Analysis *struct {
		Suspects []struct {
			Accumulation struct {
				Ordinal uint32 `json:"ordinal"`
			} `json:"accumulation"`
			PathLength int `json:"path_length"`
		} `json:"suspects"`
		PathURLs []string `json:"path_urls"`
	} `json:"analysis"`
}

// waitReport polls a heap dump report's JSON until its analysis ends.
func (s *server) waitReport(t *testing.T, id string, within time.Duration) heapReportDoc {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		code, body := s.get(t, "/api/reports/"+id)
		var d heapReportDoc
		if code != http.StatusOK || json.Unmarshal(body, &d) != nil {
			t.Fatalf("report %s: %d %.300s", id, code, body)
		}
		if d.Status == "" || d.Status == "failed" || time.Now().After(deadline) {
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// viewResult is one view's answer, and the answers of 8 GETs at once.
type viewResult struct {
	status, bytes int
	took          time.Duration
	parallel      []int
}

// getView GETs path once, then 8 times at once.
func (s *server) getView(path string) viewResult {
	client := &http.Client{Timeout: 2 * time.Minute}
	get := func() (int, int, time.Duration) {
		start := time.Now()
		resp, err := client.Get(s.base + path)
		if err != nil {
			return -1, 0, time.Since(start)
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<20))
		return resp.StatusCode, int(n), time.Since(start)
	}
	var r viewResult
	r.status, r.bytes, r.took = get()
	r.parallel = make([]int, 8)
	var wg sync.WaitGroup
	for i := range r.parallel {
		wg.Go(func() { r.parallel[i], _, _ = get() })
	}
	wg.Wait()
	return r
}

// TestHostileValidHeapDumps uploads valid heap dumps of pathological shapes to
// a real `leakui serve` under GOMEMLIMIT=1GiB and prlimit, ten reports in all:
// each analysis must end done within the server's memory, and every view of
// each report (its page, JSON and Markdown, the dominators page of its first
// suspect's accumulation point and the dominator tree's top as JSON, the
// first page of its path) must answer 200 in under 2 MB, alone and 8 at once;
// the dashboard must list the ten, and `leakui hprof` must print each dump in
// under 1 MB. The times of the views and of the dashboard are logged, never
// asserted (bench/hprof-views.sh measures them).
func TestHostileValidHeapDumps(t *testing.T) {
	dir := t.TempDir()
	s := startServerVia(t, underMemoryLimits(t), filepath.Join(dir, "data"), "-upload-rate", "-1", "-debug-pprof", "127.0.0.1:0")
	pid := s.cmd.Process.Pid
	var log strings.Builder
	var ids []string
	for _, d := range hostileDumps() {
		var buf bytes.Buffer
		if err := d.write(&buf); err != nil {
			t.Fatal(err)
		}
		dump := filepath.Join(dir, strings.NewReplacer(" ", "-", ",", "").Replace(d.name)+".hprof")
		if err := hostile.WriteHprof(dump, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			t.Fatal(err)
		}
		body, ct := multipartUpload(t, part{name: filepath.Base(dump), data: buf.Bytes()})
		size := buf.Len()
		buf = bytes.Buffer{}
		s.collectGarbage(t)
		watch := s.watchHeap(t)
		start := time.Now()
		a, _ := s.send(t, bytes.NewReader(body), ct, int64(len(body)), 5*time.Minute)
		body = nil
		if a.Status != http.StatusAccepted {
			t.Fatalf("%s: upload %d %.300s", d.name, a.Status, a.Raw)
		}
		doc := s.waitReport(t, a.ReportID, 5*time.Minute)
		took, heap := time.Since(start), watch.end()
		status := doc.Status
		if status == "" {
			status = "done"
		}
		fmt.Fprintf(&log, "%-34s %8s dump: analysis %s in %5.1f s, heap in use at most %4d MiB, peak RSS %4d MiB\n",
			d.name, analyze.FormatBytes(int64(size)), status, took.Seconds(), heap>>20, peakRSS(pid)>>20)
		if doc.Status != "" || doc.Analysis == nil {
			t.Errorf("%s: the analysis ended %q (%+v)", d.name, doc.Status, doc.Progress)
			continue
		}
		if heap > maxAnalysisHeap {
			t.Errorf("%s: the server's heap reached %d MiB analyzing it (at most %d)", d.name, heap>>20, maxAnalysisHeap>>20)
		}
		ids = append(ids, a.ReportID)
		id := a.ReportID
		views := []string{"/r/" + id, "/api/reports/" + id, "/r/" + id + ".md", "/r/" + id + "/dominators.json"}
		if sus := doc.Analysis.Suspects; len(sus) > 0 {
			views = append(views, "/r/"+id+"/dominators?node="+strconv.FormatUint(uint64(sus[0].Accumulation.Ordinal), 10))
		}
		if len(doc.Analysis.PathURLs) > 0 {
			views = append(views, "/r/"+id+"/paths/0")
		}
		for _, v := range views {
			r := s.getView(v)
			fmt.Fprintf(&log, "    %-48s %d %9s %6.0f ms; 8 at once: %v\n", strings.Replace(v, id, "ID", 1), r.status,
				analyze.FormatBytes(int64(r.bytes)), float64(r.took.Microseconds())/1000, r.parallel)
			if r.status != http.StatusOK || r.bytes > maxViewBytes {
				t.Errorf("%s: %s answered %d with %d bytes (at most %d)", d.name, v, r.status, r.bytes, maxViewBytes)
			}
			for _, st := range r.parallel {
				if st != http.StatusOK {
					t.Errorf("%s: %s answered %v to 8 GETs at once", d.name, v, r.parallel)
					break
				}
			}
		}

		// leakui hprof on the same dump, under the same limits.
		out, took, err := runLimited(t, leakuiBinary(t), "hprof", dump)
		fmt.Fprintf(&log, "    %-48s %9s in %.1f s\n", "leakui hprof", analyze.FormatBytes(int64(out)), took.Seconds())
		if err != nil || out > maxHprofBytes {
			t.Errorf("%s: leakui hprof printed %d bytes (at most %d): %v", d.name, out, maxHprofBytes, err)
		}
	}

	// The dashboard lists the reports.
	var times []time.Duration
	for range 5 {
		start := time.Now()
		code, body := s.get(t, "/")
		times = append(times, time.Since(start))
		if code != http.StatusOK {
			t.Fatalf("the dashboard: %d", code)
		}
		for _, id := range ids {
			if !strings.Contains(string(body), "/r/"+id) {
				t.Errorf("the dashboard does not list report %s", id)
			}
		}
	}
	fmt.Fprintf(&log, "dashboard with %d reports: %v\n", len(ids), times)
	if code, _ := s.get(t, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d at the end", code)
	}
	fmt.Fprintf(&log, "server peak RSS %d MiB\n", peakRSS(pid)>>20)
	t.Log("\n" + log.String())
}

// runLimited runs the program under the server's memory limits and counts what
// it writes on stdout (at most twice maxHprofBytes is read, then it is
// stopped).
func runLimited(t *testing.T, bin string, args ...string) (int, time.Duration, error) {
	t.Helper()
	argv := append(append(underMemoryLimits(t), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(stdout, 2*maxHprofBytes))
	if n == 2*maxHprofBytes {
		cmd.Process.Kill()
	}
	err = cmd.Wait()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, stderr.String())
	}
	return int(n), time.Since(start), err
}
