package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// leakingSeriesSnapshots is how many goroutine profiles the leaking series has.
const leakingSeriesSnapshots = 12

// leakingGoroutineSeries builds and runs testdata/watchers, a real program whose
// main.ledgerReplicaWatcher leaks one goroutine per step while about a hundred
// others come and go, and takes its goroutine profile over HTTP after each of n
// steps, as an SRE's curl of /debug/pprof/goroutine would. It returns the files in
// the order taken.
func leakingGoroutineSeries(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "watchers")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/watchers").CombinedOutput(); err != nil {
		t.Fatalf("go build testdata/watchers: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("watchers did not stop when its stdin closed")
		}
	}()
	out := bufio.NewReader(stdout)
	addr, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("watchers printed no address: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}} // no idle connection goroutines
	var paths []string
	for i := range n {
		if _, err := io.WriteString(stdin, "step\n"); err != nil {
			t.Fatal(err)
		}
		if line, err := out.ReadString('\n'); err != nil || line != "ok\n" {
			t.Fatalf("step %d: watchers said %q, %v", i, line, err)
		}
		resp, err := client.Get("http://" + strings.TrimSpace(addr) + "/debug/pprof/goroutine")
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("goroutine profile %d: %d %v", i, resp.StatusCode, err)
		}
		p := filepath.Join(dir, fmt.Sprintf("goroutine-%02d.pb.gz", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// seriesVerdict is what the tests read of a series report's JSON.
type seriesVerdict struct {
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason"`
	Needed   int    `json:"needed"`
	Suspects []struct {
		Name   string  `json:"name"`
		Values []int64 `json:"values"`
	} `json:"suspects"`
}

// thinSubsets lists every 3 of n snapshots, then every window of 4 to 6
// consecutive ones, each in time order.
func thinSubsets(n int) [][]int {
	var out [][]int
	for a := range n {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				out = append(out, []int{a, b, c})
			}
		}
	}
	for size := 4; size <= 6; size++ {
		for start := 0; start+size <= n; start++ {
			w := make([]int, size)
			for i := range w {
				w[i] = start + i
			}
			out = append(out, w)
		}
	}
	return out
}

// TestThinSeriesOfALeakNeverReassure takes twelve goroutine profiles of a real
// leaking program (testdata/watchers) and analyzes every 3 of them (220) and every
// window of 4 to 6 (24), with `leakui series` and through the web: none reads "no
// steady growth". With fewer snapshots than the trend test needs, the leaking
// site makes the verdict inconclusive, named with the snapshots still missing, and
// `leakui series` exits 4; the twelve together are a leak (exit 3).
func TestThinSeriesOfALeakNeverReassure(t *testing.T) {
	paths := leakingGoroutineSeries(t, leakingSeriesSnapshots)
	const leak = "main.ledgerReplicaWatcher"

	code, out, errs := runCLI(t, append([]string{"series", "-json"}, paths...)...)
	var all seriesVerdict
	if err := json.Unmarshal([]byte(out), &all); err != nil || code != seriesLeakExit {
		t.Fatalf("twelve snapshots: exit %d, %v: %s\n%s", code, err, errs, out)
	}
	want := make([]int64, leakingSeriesSnapshots)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if all.Verdict != "leak" || len(all.Suspects) != 1 || all.Suspects[0].Name != leak || !slices.Equal(all.Suspects[0].Values, want) {
		t.Fatalf("twelve snapshots: %s, suspects %+v: %s", all.Verdict, all.Suspects, all.Reason)
	}

	subsets := thinSubsets(leakingSeriesSnapshots)
	if len(subsets) != 220+24 {
		t.Fatalf("%d subsets, want 220 + 24", len(subsets))
	}
	cli := make([]string, len(subsets))
	counts := map[string]int{}
	for i, s := range subsets {
		var files []string
		for _, k := range s {
			files = append(files, paths[k])
		}
		code, out, errs := runCLI(t, append([]string{"series", "-json"}, files...)...)
		var v seriesVerdict
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("snapshots %v: exit %d, %v: %s", s, code, err, errs)
		}
		cli[i] = v.Verdict
		counts[fmt.Sprintf("%d snapshots: %s", len(s), v.Verdict)]++
		switch {
		case v.Verdict == "inconclusive" && code == seriesInconclusiveExit:
			// Named, with the snapshots missing: those the trend test needs, or,
			// when the total moved by 10% or more, the 8 that decide it.
			thin := strings.Contains(v.Reason, fmt.Sprintf("take %d more snapshot", v.Needed-len(s)))
			moved := strings.HasPrefix(v.Reason, "Too few snapshots to decide: the total went from ") &&
				strings.Contains(v.Reason, fmt.Sprintf("(at least %d more)", max(8, v.Needed)-len(s)))
			if v.Needed <= len(s) || !strings.HasPrefix(v.Reason, "Too few snapshots to decide: ") || !strings.Contains(v.Reason, leak) || !thin && !moved {
				t.Errorf("snapshots %v: inconclusive without naming %s and the snapshots missing: %s", s, leak, v.Reason)
			}
		case v.Verdict == "leak" && code == seriesLeakExit:
		default:
			t.Errorf("snapshots %v of a leaking program: %s, exit %d: %s", s, v.Verdict, code, v.Reason)
		}
	}
	t.Logf("leakui series over the leaking program's snapshots: %v", counts)

	// The web analyzes an upload of the same files alike.
	var stdout, stderr bytes.Buffer
	m := NewMain(stdio{strings.NewReader(""), &stdout, &stderr})
	if err := m.ParseFlags([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-upload-rate", "-1", "-lab=false"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	base := "http://" + m.Addr
	for i, s := range subsets {
		var files []string
		for _, k := range s {
			files = append(files, paths[k])
		}
		link := uploadFiles(t, base, files)
		var doc struct {
			Kind     string        `json:"kind"`
			Analysis seriesVerdict `json:"analysis"`
			Summary  struct {
				Verdict string `json:"verdict"`
			} `json:"summary"`
		}
		getJSON(t, base+"/api/reports/"+path.Base(link), &doc)
		if doc.Kind != "series" || doc.Analysis.Verdict != cli[i] || doc.Summary.Verdict != cli[i] {
			t.Errorf("web, snapshots %v: %s report, verdict %s (summary %s); leakui series said %s: %s",
				s, doc.Kind, doc.Analysis.Verdict, doc.Summary.Verdict, cli[i], doc.Analysis.Reason)
		}
	}
}

// uploadFiles posts files as one upload and returns the report's path.
func uploadFiles(t *testing.T, base string, paths []string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w, err := mw.CreateFormFile("file", filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	mw.Close()
	resp, err := http.Post(base+"/api/artifacts", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ReportURL string `json:"report_url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload of %d files: %d %v", len(paths), resp.StatusCode, err)
	}
	return strings.TrimPrefix(out.ReportURL, base)
}

// getJSON decodes the JSON at url into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
