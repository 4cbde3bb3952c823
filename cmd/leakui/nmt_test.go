package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// nmtOut is the part of `leakui nmt -json` the tests read.
type nmtOut struct {
	Scale          string `json:"scale"`
	Diff           bool   `json:"diff"`
	TotalCommitted int64  `json:"total_committed"`
	Categories     []struct {
		Name      string `json:"name"`
		Committed int64  `json:"committed"`
	} `json:"categories"`
	Comparison *struct {
		BaseTotalCommitted    int64 `json:"base_total_committed"`
		NonHeapCommittedDelta int64 `json:"non_heap_committed_delta"`
		HeapCommittedDelta    int64 `json:"heap_committed_delta"`
	} `json:"comparison"`
	NativeLeak *struct {
		Cause   string `json:"cause"`
		Message string `json:"message"`
		Grew    []struct {
			Name           string `json:"name"`
			CommittedDelta int64  `json:"committed_delta"`
		} `json:"grew"`
	} `json:"native_leak"`
}

func runNMTJSON(t *testing.T, wantCode int, args ...string) nmtOut {
	t.Helper()
	code, stdout, stderr := jvmRunCLI(t, "", append([]string{"nmt", "-json"}, args...)...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d: %s", code, wantCode, stderr)
	}
	var out nmtOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return out
}

// TestNMTFixture checks `leakui nmt -json` on the JDK 8 report in KB: amounts in
// bytes equal to the file's Total line times 1024, no comparison, exit 0; and the
// report against itself: a comparison without change, exit 0.
func TestNMTFixture(t *testing.T) {
	path := fixtures.Path(t, "jvm", "nmt-summary-jdk8-1529threads-KB.txt")
	out := runNMTJSON(t, 0, path)
	m := regexp.MustCompile(`committed=(\d+)KB`).FindStringSubmatch(greptest.Output(t, "-a", "^Total:", path)[0])
	kb, _ := strconv.ParseInt(m[1], 10, 64)
	if out.Scale != "KB" || out.TotalCommitted != kb*1024 || out.Comparison != nil || out.NativeLeak != nil {
		t.Errorf("scale %q, committed %d (the file says %d KB), comparison %v", out.Scale, out.TotalCommitted, kb, out.Comparison)
	}
	if n, _ := strconv.Atoi(greptest.Output(t, "-a", "-c", "^-", path)[0]); len(out.Categories) != n {
		t.Errorf("%d categories, grep counts %d", len(out.Categories), n)
	}
	self := runNMTJSON(t, 0, path, path)
	if self.Comparison == nil || self.Comparison.NonHeapCommittedDelta != 0 || self.NativeLeak != nil {
		t.Errorf("the report against itself: %+v", self.Comparison)
	}
}

// kafkaRecoveryDiff is `jcmd <pid> VM.native_memory summary.diff` of a JDK 8 broker
// recovering its log, in the layout of MemSummaryDiffReporter (memReporter.cpp):
// Internal (where JDK 8 counts Unsafe and direct buffer memory) grew by 1,572,864 KB
// since the baseline while the Java heap stayed put.
const kafkaRecoveryDiff = `5545:

Native Memory Tracking:

Total: reserved=7040707KB +1574920KB, committed=5449155KB +1573128KB

-                 Java Heap (reserved=4194304KB, committed=3645440KB)
                            (mmap: reserved=4194304KB, committed=3645440KB)

-                     Class (reserved=1109328KB +2056KB, committed=66640KB +264KB)
                            (classes #11172 +2)
                            (malloc=1360KB +8KB #15153 +331)
                            (mmap: reserved=1107968KB +2048KB, committed=65280KB +256KB)

-                    Thread (reserved=133119KB, committed=133119KB)
                            (thread #130)
                            (stack: reserved=132544KB, committed=132544KB)
                            (malloc=423KB #652)
                            (arena=152KB #256)

-                  Internal (reserved=1587512KB +1572864KB, committed=1587512KB +1572864KB)
                            (malloc=1587480KB +1572864KB #39090 +120000)
                            (mmap: reserved=32KB, committed=32KB)

-                    Symbol (reserved=16444KB, committed=16444KB)
                            (malloc=12568KB #121265)
                            (arena=3876KB #1)

`

// TestNMTSummaryDiffExit3 checks tracked growth on a summary.diff: the JSON names
// Internal (direct buffers, never KAFKA-3933: NMT does not see zlib's memory)
// with the numbers of the file, and the exit status is 3.
func TestNMTSummaryDiffExit3(t *testing.T) {
	path := jvmWriteFile(t, "nmt.diff", kafkaRecoveryDiff)
	out := runNMTJSON(t, 3, path)
	if !out.Diff || out.Comparison == nil || out.Comparison.BaseTotalCommitted != (5449155-1573128)*1024 ||
		out.Comparison.NonHeapCommittedDelta != 1573128*1024 || out.Comparison.HeapCommittedDelta != 0 {
		t.Fatalf("comparison %+v", out.Comparison)
	}
	if out.NativeLeak == nil || out.NativeLeak.Cause != "direct-buffers" || out.NativeLeak.Grew[0].Name != "Internal" || out.NativeLeak.Grew[0].CommittedDelta != 1572864*1024 {
		t.Fatalf("native leak %+v", out.NativeLeak)
	}
	code, stdout, _ := jvmRunCLI(t, "", "nmt", path)
	if code != 3 || !strings.Contains(stdout, "NATIVE LEAK: Native memory that NMT tracks outside the Java heap grew by 1.5 GB") || strings.Contains(stdout, "KAFKA-3933") {
		t.Errorf("text (exit %d):\n%s", code, stdout)
	}
	if code, _, _ := jvmRunCLI(t, "", "nmt"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}

// TestNMTWithProcStatus reads the two captures of a real JVM that left 20,000
// GZIPInputStreams open, as bundles and as their files given one by one (NMT
// summaries with /proc/PID/status, GC.heap_info and the -all class histogram
// beside them): both name the native memory NMT does not track, exit 3, and the
// untracked growth is ΔRSS − ΔNMT outside the heap − Δheap of the files.
func TestNMTWithProcStatus(t *testing.T) {
	dir := t.TempDir()
	files := map[string]map[string][]byte{}
	for _, phase := range []string{"before", "after"} {
		bundle := fixtures.Path(t, "capture", "jvm-unclosed-gzip-"+phase+".tar.gz")
		files[phase] = untarFiles(t, bundle)
		for name, b := range files[phase] {
			if err := os.WriteFile(filepath.Join(dir, phase+"-"+name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := func(phase, name string) string { return filepath.Join(dir, phase+"-"+name) }
	type out struct {
		UntrackedNativeDeltaBytes *int64 `json:"untracked_native_delta_bytes"`
		InflatersAlive            *int64 `json:"inflaters_alive"`
		Verdict                   struct {
			Cause    string `json:"cause"`
			Sentence string `json:"sentence"`
		} `json:"verdict"`
		Native struct {
			RSSDelta                int64  `json:"rss_delta"`
			TrackedOutsideHeapDelta int64  `json:"tracked_outside_heap_delta"`
			HeapDelta               int64  `json:"heap_delta"`
			HeapSource              string `json:"heap_source"`
		} `json:"native"`
	}
	read := func(args ...string) out {
		t.Helper()
		code, stdout, stderr := jvmRunCLI(t, "", append([]string{"nmt", "-json"}, args...)...)
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil || code != 3 {
			t.Fatalf("leakui nmt %q: exit %d, %v: %s", args, code, err, stderr)
		}
		return o
	}
	loose := read("-status", p("after", "proc-status.txt"), "-heap-info", p("after", "heap-info.txt"), "-histogram", p("after", "class-histogram.txt"),
		"-base-status", p("before", "proc-status.txt"), "-base-heap-info", p("before", "heap-info.txt"), "-base-histogram", p("before", "class-histogram.txt"),
		p("after", "native-memory.txt"), p("before", "native-memory.txt"))
	bundles := read(fixtures.Path(t, "capture", "jvm-unclosed-gzip-after.tar.gz"), fixtures.Path(t, "capture", "jvm-unclosed-gzip-before.tar.gz"))
	rss := func(phase string) int64 {
		m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(files[phase]["proc-status.txt"])
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n << 10
	}
	used := func(phase string) int64 {
		m := regexp.MustCompile(`used (\d+)K`).FindSubmatch(files[phase]["heap-info.txt"])
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n << 10
	}
	n := loose.Native
	if n.RSSDelta != rss("after")-rss("before") || n.HeapDelta != used("after")-used("before") || n.HeapSource != "heap used (GC.heap_info)" ||
		loose.UntrackedNativeDeltaBytes == nil || *loose.UntrackedNativeDeltaBytes != n.RSSDelta-n.TrackedOutsideHeapDelta-n.HeapDelta {
		t.Errorf("files: %+v, untracked %v; the files say RSS %+d, heap used %+d", n, loose.UntrackedNativeDeltaBytes, rss("after")-rss("before"), used("after")-used("before"))
	}
	for _, o := range []out{loose, bundles} {
		if o.Verdict.Cause != "untracked-inflaters" || o.InflatersAlive == nil || *o.InflatersAlive != 20000 || !strings.Contains(o.Verdict.Sentence, "KAFKA-3933") {
			t.Errorf("verdict %+v, Inflaters %v", o.Verdict, o.InflatersAlive)
		}
	}
	if bundles.Native.HeapSource != "resident pages of the heap (smaps)" {
		t.Errorf("bundles: heap from %q", bundles.Native.HeapSource)
	}
	code, stdout, _ := jvmRunCLI(t, "", "nmt", fixtures.Path(t, "capture", "jvm-unclosed-gzip-after.tar.gz"), fixtures.Path(t, "capture", "jvm-unclosed-gzip-before.tar.gz"))
	if code != 3 || !strings.Contains(stdout, "NATIVE LEAK: RSS grew") || !strings.Contains(stdout, "untracked_native_delta_bytes") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := jvmRunCLI(t, "", "nmt", "-base-status", p("before", "proc-status.txt"), p("after", "native-memory.txt")); code != 2 {
		t.Errorf("-base-status without BASE: exit %d %s", code, stderr)
	}
}

// untarFiles reads a gzip-compressed tar's files with archive/tar alone.
func untarFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], _ = io.ReadAll(tr)
	}
}
