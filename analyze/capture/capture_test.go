package capture

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/hostile/bundle"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// untar reads a bundle's files with archive/tar alone: the anchor the reader's
// results are checked against.
func untar(t *testing.T, path string) map[string][]byte {
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
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name], _ = io.ReadAll(tr)
	}
}

// kB finds "Key: N kB" in a /proc file, in bytes.
func kB(t *testing.T, text []byte, key string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + key + `:\s+(\d+) kB$`).FindSubmatch(text)
	if m == nil {
		t.Fatalf("no %s line", key)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}

// TestJVMFixtures reads the two bundles `leakui capture jvm` took of a real JVM
// (OpenJDK 17) before and after it opened 20,000 GZIPInputStreams and left them
// open: every figure of the report is the one the bundle's own files hold, and
// the untracked growth is ΔRSS − ΔNMT outside the heap − Δ resident heap.
func TestJVMFixtures(t *testing.T) {
	var caps []*Capture
	var files []map[string][]byte
	for _, name := range []string{"jvm-unclosed-gzip-after.tar.gz", "jvm-unclosed-gzip-before.tar.gz"} {
		path := fixtures.Path(t, "capture", name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ReadCapture(f, 0, Limits{}, nil)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.JVM.Problems) != 0 || c.Manifest.Kind != KindJVM || len(c.Manifest.Steps) != len(JVMSteps) {
			t.Fatalf("%s: problems %q, %d steps", name, c.JVM.Problems, len(c.Manifest.Steps))
		}
		for i, s := range c.Manifest.Steps {
			if s.Name != JVMSteps[i] || s.Error != "" || s.Finished.Before(s.Started) || (i > 0 && s.Started.Before(c.Manifest.Steps[i-1].Finished)) {
				t.Errorf("%s: step %d %+v out of order", name, i, s)
			}
		}
		caps, files = append(caps, c), append(files, untar(t, path))
	}
	rep, err := Analyze(caps)
	if err != nil {
		t.Fatal(err)
	}
	after, before := files[0], files[1]
	if !rep.Bundles[0].Started.Before(rep.Bundles[1].Started) {
		t.Fatal("the bundles are not ordered by their capture time")
	}
	j := rep.JVM
	rssDelta := kB(t, after["proc-status.txt"], "VmRSS") - kB(t, before["proc-status.txt"], "VmRSS")
	nmt := func(files map[string][]byte) int64 {
		n, err := jvm.ParseNMT(bytes.NewReader(files["native-memory.txt"]))
		if err != nil {
			t.Fatal(err)
		}
		heap, _ := n.Category(jvm.HeapCategory)
		return n.TotalCommitted - heap.Committed
	}
	heap := func(files map[string][]byte) int64 {
		h, err := jvm.ParseHeapInfo(bytes.NewReader(files["heap-info.txt"]))
		if err != nil {
			t.Fatal(err)
		}
		n, err := ResidentIn(files["proc-smaps.txt"], h.Start, h.End)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	trackedDelta, heapDelta := nmt(after)-nmt(before), heap(after)-heap(before)
	if !j.Complete || j.RSSDelta != rssDelta || j.TrackedOutsideHeapDelta != trackedDelta || j.HeapDelta != heapDelta || j.HeapSource != jvm.HeapFromSmaps ||
		j.UntrackedNativeDeltaBytes != rssDelta-trackedDelta-heapDelta {
		t.Errorf("RSS %+d (files %+d), NMT %+d (files %+d), heap %+d (files %+d), untracked %+d", j.RSSDelta, rssDelta,
			j.TrackedOutsideHeapDelta, trackedDelta, j.HeapDelta, heapDelta, j.UntrackedNativeDeltaBytes)
	}
	inflaters := regexp.MustCompile(`(?m)^\s*\d+:\s+(\d+)\s+\d+\s+java\.util\.zip\.Inflater `).FindSubmatch(after["class-histogram.txt"])
	if inflaters == nil || string(inflaters[1]) != "20000" || j.InflatersAlive != 20000 || j.InflatersDelta != 20000 {
		t.Errorf("Inflaters %d (%+d), the histogram says %q", j.InflatersAlive, j.InflatersDelta, inflaters)
	}
	if rep.Verdict.Cause != "untracked-inflaters" || !strings.Contains(rep.Verdict.Sentence, "20,000 java.util.zip.Inflater alive") {
		t.Errorf("verdict %+v", rep.Verdict)
	}
	if want := 20000.0 * jvm.InflaterNativeBytes; float64(j.UntrackedNativeDeltaBytes) < 0.7*want || float64(j.UntrackedNativeDeltaBytes) > 1.3*want {
		t.Errorf("untracked %d, want within 30%% of %.0f", j.UntrackedNativeDeltaBytes, want)
	}
	if th := countThreads(after["threads.txt"]); rep.Captures[1].Threads != th || th < 10 {
		t.Errorf("threads %d, grep counts %d", rep.Captures[1].Threads, th)
	}
	if st := rep.Captures[1].Status; st.VmRSS != kB(t, after["proc-status.txt"], "VmRSS") || st.RssAnon != kB(t, after["proc-status.txt"], "RssAnon") || st.Name != "java" {
		t.Errorf("status %+v", st)
	}
	if r := rep.Captures[1].Rollup; r.Get("Rss") != kB(t, after["proc-smaps-rollup.txt"], "Rss") || r.Get("Anonymous") != kB(t, after["proc-smaps-rollup.txt"], "Anonymous") {
		t.Errorf("smaps_rollup %+v", r)
	}
	if v := rep.Captures[1].Version; !strings.Contains(v, "OpenJDK") || strings.HasSuffix(v, ":") {
		t.Errorf("version %q", v)
	}
}

// TestWriterRoundTrip writes a bundle and reads it back: the manifest first (so
// that analyze.DetectKind tells a bundle from any tar), a failed step recorded
// with its error and hint and no file, the rest intact.
func TestWriterRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 123e6, time.UTC)
	w := NewWriter(KindJVM, Target{Host: "broker-1", PID: 4242, StartTicks: 99}, "test", at)
	w.Add(Step{Name: StepProcStatus, Command: "/proc/4242/status", Started: at, Finished: at.Add(time.Millisecond)}, []byte("Name:\tjava\nVmRSS:\t 2048 kB\n"), nil)
	w.Add(Step{Name: StepNMT, Command: "jcmd 4242 VM.native_memory summary", Started: at, Finished: at, Hint: "turn it on"}, nil, errors.New("Native Memory Tracking is not enabled"))
	var buf bytes.Buffer
	if err := w.Write(&buf, at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	rc, _, err := analyze.Decompress(bytes.NewReader(buf.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := io.ReadAll(rc)
	if d := analyze.DetectKind(head); d.Kind != analyze.KindCapture || d.Format != "leakui capture bundle (jvm)" {
		t.Fatalf("detected %+v", d)
	}
	c, err := ReadCapture(bytes.NewReader(buf.Bytes()), 0, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Manifest
	if m.Target.PID != 4242 || m.Target.Host != "broker-1" || len(m.Steps) != 2 || m.Steps[0].File != "proc-status.txt" || m.Steps[0].Bytes != int64(len("Name:\tjava\nVmRSS:\t 2048 kB\n")) ||
		m.Steps[1].File != "" || m.Steps[1].Error == "" || m.Steps[1].Hint != "turn it on" || !m.Finished.Equal(at.Add(time.Second)) {
		t.Fatalf("manifest %+v", m)
	}
	if c.JVM.Status.VmRSS != 2048<<10 || c.JVM.NMT != nil || !strings.Contains(strings.Join(c.JVM.Problems, " "), "native-memory failed") {
		t.Errorf("capture %+v", c.JVM)
	}
}

// TestReadRefuses runs the hostile bundles through the reader: each is refused
// with the error its status maps from, naming what is wrong.
func TestReadRefuses(t *testing.T) {
	const maxTotal = 4 << 20
	want := map[int]error{413: analyze.ErrTooLarge, 415: analyze.ErrUnsupportedKind, 422: analyze.ErrMalformed}
	for _, h := range bundle.Cases(maxTotal) {
		t.Run(h.Name, func(t *testing.T) {
			_, err := ReadCapture(bytes.NewReader(h.Data), 2*maxTotal, Limits{MaxFileBytes: maxTotal, MaxTotalBytes: maxTotal}, analyze.NewBudget(64<<20))
			if !errors.Is(err, want[h.Status]) || !strings.Contains(err.Error(), h.Message) {
				t.Errorf("%v; want %v containing %q", err, want[h.Status], h.Message)
			}
		})
	}
	// An analysis's budget smaller than the bundle refuses it before it holds it.
	b := bundle.Tar(bundle.File("manifest.json", bundle.Manifest("a.txt")), bundle.File("a.txt", make([]byte, 1<<20)))
	if _, err := ReadCapture(bytes.NewReader(b), 0, Limits{}, analyze.NewBudget(0).Child(512<<10)); !errors.Is(err, analyze.ErrTooLarge) {
		t.Errorf("over the budget: %v", err)
	}
}

// TestGoCapture writes a Go bundle of this test process's own runtime (heap and
// goroutine profiles, expvar's memstats) over three snapshots and reads it: the
// totals are the profiles', the memory statistics the runtime's.
func TestGoCapture(t *testing.T) {
	at := time.Now()
	w := NewWriter(KindGo, Target{Host: "h", URL: "http://127.0.0.1:6060/debug/pprof/"}, "test", at)
	var want []int
	stop := make(chan struct{})
	defer close(stop)
	for n := 1; n <= 3; n++ {
		for range 5 * n { // more goroutines at each snapshot
			go func() { <-stop }()
		}
		var heap, goroutine bytes.Buffer
		runtime.GC()
		pprof.WriteHeapProfile(&heap)
		pprof.Lookup("goroutine").WriteTo(&goroutine, 0)
		want = append(want, runtime.NumGoroutine())
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		msJSON, _ := json.Marshal(ms)
		s := func(name string) Step {
			return Step{Name: name, Snapshot: n, Started: at.Add(time.Duration(n) * time.Second), Finished: at.Add(time.Duration(n) * time.Second)}
		}
		w.Add(s(StepHeap), heap.Bytes(), nil)
		w.Add(s(StepGoroutine), goroutine.Bytes(), nil)
		w.Add(s(StepGoroutineLeak), nil, errors.New("not served"))
		w.Add(s(StepMemStats), msJSON, nil)
	}
	var buf bytes.Buffer
	if err := w.Write(&buf, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCapture(bytes.NewReader(buf.Bytes()), 0, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze([]*Capture{c})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Go
	if len(g.Snapshots) != 3 || len(rep.Problems) != 0 {
		t.Fatalf("%d snapshots, problems %q", len(g.Snapshots), rep.Problems)
	}
	for i, s := range g.Snapshots {
		if s.Goroutines != int64(want[i]) || s.Leaked != -1 || s.HeapInuse < 0 || s.MemStats == nil || s.MemStats.HeapSys <= 0 || s.MemStats.NumGC <= 0 {
			t.Errorf("snapshot %d: %+v (%d goroutines)", i+1, s, want[i])
		}
	}
	if g.GoroutinesDelta != int64(want[2]-want[0]) || g.GoroutineSeries == nil || g.HeapSeries == nil {
		t.Errorf("goroutines %+d, want %+d; series %v %v", g.GoroutinesDelta, want[2]-want[0], g.GoroutineSeries != nil, g.HeapSeries != nil)
	}
	// The same process captured from another host is another process.
	other := *c
	other.Manifest.Target.Host = "elsewhere"
	if _, err := Analyze([]*Capture{c, &other}); !errors.Is(err, analyze.ErrMismatch) {
		t.Errorf("two processes: %v", err)
	}
}

// TestProcParsers reads the /proc files of the fixture bundle and refuses what
// is not one.
func TestProcParsers(t *testing.T) {
	files := untar(t, fixtures.Path(t, "capture", "jvm-unclosed-gzip-after.tar.gz"))
	if _, err := ParseStatus([]byte("VmRSS:\t1 kB\n")); !errors.Is(err, analyze.ErrUnsupportedKind) {
		t.Errorf("status without Name: %v", err)
	}
	if _, err := ParseStatus([]byte("Name:\tkthreadd\nPid:\t2\n")); !errors.Is(err, analyze.ErrMalformed) {
		t.Errorf("a kernel thread's status: %v", err)
	}
	if _, err := ParseStatus([]byte("Name:\tjava\nVmRSS:\t99999999999999999999 kB\n")); !errors.Is(err, analyze.ErrMalformed) {
		t.Errorf("an amount out of range: %v", err)
	}
	if _, err := ParseSmapsRollup(files["proc-status.txt"]); !errors.Is(err, analyze.ErrUnsupportedKind) {
		t.Errorf("status as smaps_rollup: %v", err)
	}
	// The heap range of the bundle's GC.heap_info holds the smaps mappings whose
	// Rss adds up (an independent sum of the same lines).
	h, _ := jvm.ParseHeapInfo(bytes.NewReader(files["heap-info.txt"]))
	var sum int64
	in := false
	for _, l := range strings.Split(string(files["proc-smaps.txt"]), "\n") {
		if m := regexp.MustCompile(`^([0-9a-f]+)-[0-9a-f]+ `).FindStringSubmatch(l); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			in = a >= h.Start && a < h.End
		} else if in && strings.HasPrefix(l, "Rss:") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			sum += n << 10
		}
	}
	if got, err := ResidentIn(files["proc-smaps.txt"], h.Start, h.End); err != nil || got != sum || sum == 0 {
		t.Errorf("heap resident %d (%v), the lines add up to %d", got, err, sum)
	}
	if _, err := ResidentIn([]byte("Rss: 4 kB\n"), 0, 1<<40); !errors.Is(err, analyze.ErrUnsupportedKind) {
		t.Errorf("no mapping: %v", err)
	}
	start, err := ParseStatStart([]byte("4242 (java (odd) name) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 19 0 123456 3880612 1 18446744073709551615"))
	if err != nil || start != 123456 {
		t.Errorf("start %d, %v", start, err)
	}
}

func fuzzSeeds(f *testing.F) {
	for _, name := range []string{"jvm-unclosed-gzip-before.tar.gz", "jvm-unclosed-gzip-after.tar.gz"} {
		b, err := os.ReadFile(fixtures.Path(f, "capture", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, h := range bundle.Cases(64 << 10) {
		if len(h.Data) < 1<<20 {
			f.Add(h.Data)
		}
	}
}

// FuzzRead: any bytes are a bundle or a sentinel error, within the limits.
func FuzzRead(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		budget := analyze.NewBudget(8 << 20)
		c, err := ReadCapture(bytes.NewReader(data), 4<<20, Limits{MaxFileBytes: 1 << 20, MaxTotalBytes: 2 << 20}, budget)
		if err != nil {
			for _, s := range []error{analyze.ErrEmpty, analyze.ErrUnsupportedKind, analyze.ErrMalformed, analyze.ErrTooLarge} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error %v is not a sentinel", err)
		}
		if budget.Used() > 8<<20 {
			t.Fatalf("charged %d", budget.Used())
		}
		if _, err := Analyze([]*Capture{c}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzProc: the /proc parsers return a result or a sentinel error, never panic,
// and keep only what they were given.
func FuzzProc(f *testing.F) {
	for _, name := range []string{"jvm-unclosed-gzip-before.tar.gz", "jvm-unclosed-gzip-after.tar.gz"} {
		for file, b := range untar(&testing.T{}, fixtures.Path(f, "capture", name)) {
			if strings.HasPrefix(file, "proc-") {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("4242 (java) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 19 0 123456 1 1"))
	f.Add([]byte(`{"memstats":{"HeapSys":1,"HeapInuse":2,"NumGC":3}}`))
	f.Add([]byte("# runtime.MemStats\n# HeapSys = 10\n# NumGC = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sentinel := func(err error) {
			if err != nil && !errors.Is(err, analyze.ErrEmpty) && !errors.Is(err, analyze.ErrUnsupportedKind) && !errors.Is(err, analyze.ErrMalformed) {
				t.Fatalf("error %v is not a sentinel", err)
			}
		}
		if s, err := ParseStatus(data); err == nil {
			if s.VmRSS < 0 || len(s.Name) > 200 {
				t.Fatalf("%+v", s)
			}
		} else {
			sentinel(err)
		}
		if r, err := ParseSmapsRollup(data); err == nil {
			if r.Get("Rss") < 0 || len(r.Fields) > 64 {
				t.Fatalf("%+v", r)
			}
		} else {
			sentinel(err)
		}
		if n, err := ResidentIn(data, 0, 1<<47); err == nil && n < 0 {
			t.Fatalf("resident %d", n)
		} else {
			sentinel(err)
		}
		if n, err := ParseStatStart(data); err == nil && n < 0 {
			t.Fatalf("start %d", n)
		} else {
			sentinel(err)
		}
		if m, err := ParseMemStats(data); err == nil && m.HeapSys < 0 {
			t.Fatalf("%+v", m)
		} else {
			sentinel(err)
		}
	})
}
