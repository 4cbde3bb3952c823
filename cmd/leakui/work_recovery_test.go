package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/testtool"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/lab/child"
	"github.com/leakui/leakui/recovery"
	"go.uber.org/goleak"
)

// recoveryKeys are the counters every progress and done line of `work recovery`
// carries; the lab reads exactly these.
var recoveryKeys = []string{
	"segments_done", "segments", "batches", "records", "bytes", "index_entries",
	"iterators_opened", "iterators_closed", "iterators_open", "records_decompressed",
	"truncations", "truncated_bytes", "segments_deleted", "offheap_bytes", "offheap_windows",
	"offheap_released_by_close", "offheap_released_by_cleanup", "gc_cycles", "elapsed_ms",
}

// smallRecovery sizes a run for tests: 1 partition × 3 segments × 20 batches.
var smallRecovery = []string{"-partitions", "1", "-segments", "3", "-batches", "20", "-records", "5", "-value-bytes", "200"}

// runRecovery runs `leakui work recovery` in this process.
func runRecovery(t *testing.T, args ...string) (code int, events []child.Event, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"work", "recovery"}, args...), stdio{strings.NewReader(""), &out, &errOut})
	return code, decodeEvents(t, out.String()), errOut.String()
}

// grepCount runs the real grep -c, the anchor of log counts.

func TestWorkRecoveryEventsAndLogCounts(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, variant := range []string{"close", "drain", "header"} {
		t.Run(variant, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "server.log")
			code, events, stderr := runRecovery(t, append([]string{"-json", "-variant", variant, "-codec", "gzip", "-log", logFile}, smallRecovery...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// Ready, the write phase (one event per segment written), the
			// three segments recovered and done.
			if len(events) != 8 || events[0].Kind != child.EventReady || events[0].Pprof == "" || events[7].Kind != child.EventDone {
				t.Fatalf("events: %+v", events)
			}
			checkWritePhase(t, events[1:4], 3)
			events = append(events[:1], events[4:]...)
			for i, ev := range events[1:] {
				if ev.StepName != "segment" || ev.Step != int64(min(i+1, 3)) || ev.Steps != 3 || ev.Memory.RSS <= 0 || ev.Memory.HeapInuse <= 0 {
					t.Fatalf("event %d: %+v", i+1, ev)
				}
				for _, k := range recoveryKeys {
					if _, ok := ev.Counters[k]; !ok {
						t.Fatalf("event %d lacks %q: %v", i+1, k, ev.Counters)
					}
				}
				if ev.Counters["segments_done"] != ev.Step || ev.Counters["segments"] != 3 {
					t.Fatalf("event %d: segments %v", i+1, ev.Counters)
				}
			}
			done := events[4].Counters
			// 0.10 opens a deep iterator only where an index entry is due.
			wantOpened := done["index_entries"]
			if variant == "header" {
				wantOpened = 0
			}
			if done["index_entries"] == 0 || done["index_entries"] >= done["batches"] {
				t.Fatalf("%d index entries for %d batches", done["index_entries"], done["batches"])
			}
			if done["batches"] != 60 || done["records"] != 300 || done["iterators_opened"] != wantOpened ||
				done["iterators_closed"] != wantOpened || done["iterators_open"] != 0 || done["offheap_bytes"] != 0 || done["log_end_offsets"] != 300 {
				t.Fatalf("done: %v", done)
			}
			// The counters are what the log says, counted by grep.
			for pattern, counter := range map[string]string{
				"DEBUG Opened deep iterator (gzip, magic 0) for the batch at byte offset ": "iterators_opened",
				"DEBUG Closed deep iterator (gzip, magic 0) for the batch at byte offset ": "iterators_closed",
				"INFO Recovering unflushed segment ":                                       "segments_done",
			} {
				if n := grepCount(t, pattern, logFile); n != done[counter] {
					t.Errorf("grep -c %q = %d, %s = %d", pattern, n, counter, done[counter])
				}
			}
			if n := grepCount(t, "INFO Completed load of log recovery-0 with log end offset 300 (kafka.log.Log)", logFile); n != 1 {
				t.Errorf("completed-load line found %d times", n)
			}
			// The deep-iterator lines are the model's, under its own logger:
			// nothing but Kafka's own invalid-messages warning goes under
			// kafka.log.LogSegment (none in an undamaged log).
			if n := grepCount(t, "(kafka.log.LogSegment)", logFile); n != grepCount(t, "WARN Found invalid messages in log segment ", logFile) {
				t.Errorf("grep -c '(kafka.log.LogSegment)' = %d: lines Kafka never wrote carry its logger", n)
			}
			if n := grepCount(t, "(leakui.recovery.model)", logFile); n != done["iterators_opened"]+done["iterators_closed"] {
				t.Errorf("grep -c '(leakui.recovery.model)' = %d, want the iterators opened and closed, %d", n, done["iterators_opened"]+done["iterators_closed"])
			}
			// The preset reads the model's log: its iterators measured, the time
			// from the first segment recovered to the last log loaded.
			code, out, errOut := countCLI(t, nil, "count", "-preset", "kafka-3933", "-json", logFile)
			var rep logs.Report
			if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
				t.Fatalf("count: exit %d, %v: %s", code, err, errOut)
			}
			if p, _ := rep.Pair("deep iterators"); p.Measurable != (wantOpened > 0) || p.Starts != wantOpened || p.Open != 0 {
				t.Errorf("deep iterators: %d started, %d open, measurable %v; the run opened %d", p.Starts, p.Open, p.Measurable, wantOpened)
			}
			if sp := rep.Spans[0]; !sp.Measurable || sp.Start.Line != 2 || sp.EndedBy != "Completed load of log" {
				t.Errorf("recovery time %+v: want it measured from line 2 to the log loaded", sp)
			}
		})
	}
}

// checkWritePhase checks the write phase's events: one per segment written, k
// of n in order, under the phase's step name, which is not the recovery's unit.
func checkWritePhase(t *testing.T, events []child.Event, segments int64) {
	t.Helper()
	if int64(len(events)) != segments {
		t.Fatalf("%d write events, want %d", len(events), segments)
	}
	for i, ev := range events {
		k := int64(i + 1)
		if ev.Kind != child.EventProgress || ev.StepName != writePhase || ev.StepName == lab.UnitOf(lab.WorkloadRecovery) ||
			ev.Step != k || ev.Steps != segments || ev.Counters["segments_written"] != k || ev.Counters["bytes_written"] <= 0 {
			t.Fatalf("write event %d: %+v", k, ev)
		}
	}
}

func TestWorkRecoveryWriteOnlyThenRecoverTwice(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := filepath.Join(t.TempDir(), "log")
	code, events, stderr := runRecovery(t, append([]string{"-json", "-write-only", "-dir", dir, "-codec", "snappy"}, smallRecovery...)...)
	if code != 0 || len(events) != 5 || events[4].Kind != child.EventDone ||
		events[4].Counters["batches"] != 60 || events[4].Counters["segments"] != 3 || events[4].Counters["bytes"] <= 0 {
		t.Fatalf("write-only: exit %d %s %+v", code, stderr, events)
	}
	checkWritePhase(t, events[1:4], 3)
	if events[3].Counters["bytes_written"] != events[4].Counters["bytes"] {
		t.Errorf("the write phase ended at %d bytes, the log has %d", events[3].Counters["bytes_written"], events[4].Counters["bytes"])
	}
	if _, err := os.Stat(filepath.Join(dir, recovery.RecoveryPointFile)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runRecovery(t, "-write-only", "-dir", dir)
	if code != 2 || !strings.Contains(stderr, "already holds a log") {
		t.Fatalf("second -write-only: exit %d %q", code, stderr)
	}
	var first map[string]int64
	for i := range 2 {
		code, events, stderr := runRecovery(t, "-json", "-variant", "drain", "-dir", dir)
		if code != 0 {
			t.Fatalf("recover %d: exit %d %s", i, code, stderr)
		}
		done := events[len(events)-1].Counters
		delete(done, "elapsed_ms")
		delete(done, "gc_cycles")
		if first == nil {
			first = done
		} else if !equalCounters(first, done) {
			t.Fatalf("second recovery differs:\n%v\n%v", first, done)
		}
	}
	if first["batches"] != 60 || first["index_entries"] == 0 || first["records_decompressed"] != 5*first["index_entries"] || first["truncations"] != 0 {
		t.Fatalf("recovered %v", first)
	}
}

func equalCounters(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestWorkRecoveryRemovesItsTemporaryDirectory(t *testing.T) {
	defer goleak.VerifyNone(t)
	logFile := filepath.Join(t.TempDir(), "server.log")
	code, _, stderr := runRecovery(t, append([]string{"-variant", "close", "-codec", "lz4", "-log", logFile}, smallRecovery...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(logFile)
	m := regexp.MustCompile(`in log segment (\S+)/recovery-0/`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no segment path in the log:\n%s", b)
	}
	if _, err := os.Stat(string(m[1])); !os.IsNotExist(err) {
		t.Fatalf("temporary log directory %s left behind (%v)", m[1], err)
	}
}

func TestWorkRecoveryRejectsBadFlags(t *testing.T) {
	defer goleak.VerifyNone(t)
	notALog := t.TempDir()
	os.WriteFile(filepath.Join(notALog, "notes.txt"), []byte("mine"), 0o644)
	for _, args := range [][]string{
		{"-dir", notALog}, {"-variant", "fixed"}, {"-codec", "brotli"}, {"-decoders", "cgo"}, {"-batches", "0"},
		{"-index-interval", "0"}, {"-write-only"}, {"-partitions", "x"}, {"extra"},
	} {
		code, _, stderr := runRecovery(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || stderr == "" || (args[0] != "-partitions" && len(lines) != 1) {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestWorkRecoveryHoldServesProfilesUntilCancelled checks that -hold keeps the pprof
// endpoint answering after the done line and that cancelling ends the hold.
func TestWorkRecoveryHoldServesProfilesUntilCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	finished := make(chan int, 1)
	go func() {
		defer pw.Close()
		finished <- run(ctx, append([]string{"work", "recovery", "-json", "-hold", "1m", "-variant", "header"}, smallRecovery...),
			stdio{strings.NewReader(""), pw, io.Discard})
	}()
	sc := bufio.NewScanner(pr)
	var addr string
	for sc.Scan() {
		var ev child.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind == child.EventReady {
			addr = ev.Pprof
		}
		if ev.Kind == child.EventDone {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "goroutine profile: total") {
		t.Fatalf("pprof during hold: %s", body)
	}
	start := time.Now()
	cancel()
	select {
	case code := <-finished:
		if code != 0 || time.Since(start) > 5*time.Second {
			t.Fatalf("after cancel: exit %d in %v", code, time.Since(start))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hold ignored the cancellation")
	}
}

// The leaky runs happen in a child process (this test binary re-executed), so
// what they leak dies with it.

const childArgsEnv = "LEAKUI_TEST_WORK_RECOVERY_ARGS"

// TestWorkRecoveryChildProcess is the child: it runs the command with the
// arguments in the environment and exits with its status.
func TestWorkRecoveryChildProcess(t *testing.T) {
	raw := os.Getenv(childArgsEnv)
	if raw == "" {
		t.Skip("only runs as the child of the leaky tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(context.Background(), args, stdio{os.Stdin, os.Stdout, os.Stderr}))
}

func runRecoveryChild(t *testing.T, env []string, args ...string) []child.Event {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"work", "recovery", "-json"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkRecoveryChildProcess$")
	cmd.Env = append(append(os.Environ(), childArgsEnv+"="+string(raw)), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, errOut.String())
	}
	return decodeEvents(t, out.String())
}

// firstSegment is the progress event of the first segment recovered, after the
// write phase's.
func firstSegment(t *testing.T, events []child.Event) child.Event {
	t.Helper()
	for _, ev := range events {
		if ev.Kind == child.EventProgress && ev.StepName == "segment" {
			return ev
		}
	}
	t.Fatalf("no segment recovered among %+v", events)
	return child.Event{}
}

// TestWorkRecoveryLeakyGzipGrowsOffHeap: between the first and the last segment
// the unclosed gzip iterators (one per index entry due) add about three pages
// each to RSS minus heap in use, and the done line says how many are open.
func TestWorkRecoveryLeakyGzipGrowsOffHeap(t *testing.T) {
	events := runRecoveryChild(t, nil, "-variant", "leaky", "-codec", "gzip", "-partitions", "1", "-segments", "2", "-batches", "150")
	first, done := firstSegment(t, events), events[len(events)-1]
	if first.Kind != child.EventProgress || done.Kind != child.EventDone {
		t.Fatalf("events %+v", events)
	}
	c := done.Counters
	opened := c["iterators_opened"]
	if opened == 0 || opened != c["index_entries"] || opened >= c["batches"] || c["iterators_closed"] != 0 || c["iterators_open"] != opened ||
		c["offheap_bytes"] != opened*recovery.GzipOffheapBytes || c["offheap_windows"] != opened || c["gc_cycles"] != 0 {
		t.Fatalf("done: %v", c)
	}
	added := c["iterators_opened"] - first.Counters["iterators_opened"]
	gapGrowth := (done.Memory.RSS - done.Memory.HeapInuse) - (first.Memory.RSS - first.Memory.HeapInuse)
	t.Logf("second segment: %d iterators left open, RSS−heap in use %+d, heap in use %d", added, gapGrowth, done.Memory.HeapInuse)
	if added < 50 || gapGrowth < added*(3<<12)*3/4 {
		t.Fatalf("second segment left %d more iterators open but RSS minus heap in use grew by %d", added, gapGrowth)
	}
	if !strings.HasPrefix(done.Message, "verdict: LEAK: leaky over gzip in message format v0 left ") {
		t.Fatalf("verdict %q", done.Message)
	}
}

// TestWorkRecoveryDefaultsReproduceTheLeak runs `leakui work recovery` with no
// flag but a smaller log: gzip, message format v0, leaky, quiet heap; it ends
// with a leak verdict on its last line.
func TestWorkRecoveryDefaultsReproduceTheLeak(t *testing.T) {
	raw, _ := json.Marshal([]string{"work", "recovery", "-partitions", "1", "-segments", "2"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkRecoveryChildProcess$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	t.Log(last)
	m := regexp.MustCompile(`^verdict: LEAK: leaky over gzip in message format v0 left (\d+) of (\d+) deep iterators open .*grew by \+([0-9.]+) MiB while`).FindStringSubmatch(last)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Fatalf("last line %q", last)
	}
	done := lines[len(lines)-2]
	if !strings.Contains(done, " gc_cycles=0 ") || !strings.Contains(done, " index_entries="+m[1]+" ") {
		t.Fatalf("done line %q", done)
	}
}

// TestWorkRecoveryLeakyZstdGrowsGoroutines: batches of two zstd blocks, decoder
// concurrency 2: three goroutines stay behind per unclosed iterator.
func TestWorkRecoveryLeakyZstdGrowsGoroutines(t *testing.T) {
	events := runRecoveryChild(t, []string{"GOMAXPROCS=2"},
		"-variant", "leaky", "-codec", "zstd", "-partitions", "1", "-segments", "2", "-batches", "4", "-records", "300")
	first, done := firstSegment(t, events), events[len(events)-1]
	// Every batch is larger than the index interval: all but the first of each
	// segment get an index entry, and an iterator.
	if done.Counters["iterators_open"] != 6 || first.Counters["iterators_open"] != 3 {
		t.Fatalf("iterators: %v", done.Counters)
	}
	// Each iterator's goroutines exist once its first record is read, and they
	// never end: the second segment's three iterators add exactly nine.
	if grown := done.Memory.Goroutines - first.Memory.Goroutines; grown != 3*3 || done.Memory.Goroutines < 3*6 {
		t.Fatalf("goroutines %d after the first segment, %d at the end", first.Memory.Goroutines, done.Memory.Goroutines)
	}
}

// TestWorkRecoveryCorruptBatch damages an indexed gzip payload of a v0 log: drain
// (0.10.0.1) truncates there and says why; leaky and header keep every offset,
// and their verdicts say why they did not see it.
func TestWorkRecoveryCorruptBatch(t *testing.T) {
	args := []string{"-json", "-partitions", "1", "-segments", "3", "-batches", "60", "-corrupt-batch", "30"}
	for _, c := range []struct {
		variant, because string
		truncated        bool
	}{
		{"drain", "was seen: 0.10.0.1 reads every indexed wrapper to its end", true},
		{"close", "was not seen: this variant reads only the first record", false},
		{"header", "was not seen: modern Kafka takes offsets from headers", false},
	} {
		code, events, stderr := runRecovery(t, append(args, "-variant", c.variant)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.variant, code, stderr)
		}
		done := events[len(events)-1]
		d := done.Counters
		wantEnd, wantTruncations := int64(3600), int64(0)
		if c.truncated {
			wantEnd, wantTruncations = d["corrupt_batch_offset"], 1
		}
		if d["corrupt_batch_indexed"] != 1 || d["corrupt_batch_offset"] != 600 || d["log_end_offsets"] != wantEnd ||
			d["truncations"] != wantTruncations || !strings.Contains(done.Message, c.because) {
			t.Errorf("%s: %v\n%s", c.variant, d, done.Message)
		}
	}
	if code, _, stderr := runRecovery(t, "-corrupt-batch", "5", "-codec", "none", "-partitions", "1", "-segments", "1", "-batches", "10"); code == 0 || !strings.Contains(stderr, "not compressed") {
		t.Errorf("-corrupt-batch of an uncompressed log: exit %d %q", code, stderr)
	}
}

// TestWorkRecoveryJVMVariant runs the JVM reference on a small v0 gzip log: as
// many GZIPInputStreams open as leaky leaves deep iterators, the JVM's resident
// set grown by at least a page per stream, and the jcmd outputs written.
func TestWorkRecoveryJVMVariant(t *testing.T) {
	testtool.Require(t, "jdk", "javac")
	dir := filepath.Join(t.TempDir(), "log")
	code, events, stderr := runRecovery(t, "-json", "-variant", "jvm", "-partitions", "1", "-segments", "2", "-batches", "200", "-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	done := events[len(events)-1]
	c := done.Counters
	if done.Kind != child.EventDone || c["jvm_streams"] == 0 || c["jvm_streams"] != c["index_entries"] || c["iterators_open"] != c["jvm_streams"] ||
		c["jvm_rss_after"]-c["jvm_rss_before"] < 4096*c["jvm_streams"] || !strings.HasPrefix(done.Message, "verdict: LEAK (JVM reference") {
		t.Fatalf("done: %v %s", c, done.Message)
	}
	for _, name := range []string{"nmt-before.txt", "nmt-after.txt", "histo.txt", "capture-before.tar.gz", "capture-after.tar.gz"} {
		if b, err := os.ReadFile(filepath.Join(dir, "jvm", name)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The bundles leakui capture jvm took of the reference JVM read as the
	// streams it left open.
	var native nmtJSON
	code, stdout, stderr := jvmRunCLI(t, "", "nmt", "-json", filepath.Join(dir, "jvm", "capture-after.tar.gz"), filepath.Join(dir, "jvm", "capture-before.tar.gz"))
	if err := json.Unmarshal([]byte(stdout), &native); err != nil || native.Native == nil {
		t.Fatalf("leakui nmt on the bundles: exit %d, %v: %s", code, err, stderr)
	}
	if native.Native.InflatersDelta != c["jvm_streams"] || !native.Native.Complete {
		t.Errorf("the bundles hold %d more Inflaters (complete %v), the JVM left %d streams open", native.Native.InflatersDelta, native.Native.Complete, c["jvm_streams"])
	}
	t.Logf("%d streams: RSS %+d B (the JVM measured %+d B), untracked native %+d B: %s", c["jvm_streams"], native.Native.RSSDelta,
		c["jvm_rss_after"]-c["jvm_rss_before"], native.Native.UntrackedNativeDeltaBytes, native.Native.Verdict.Sentence)
	if code, _, stderr := runRecovery(t, "-variant", "jvm", "-format", "v1"); code != 2 || !strings.Contains(stderr, "format v0") {
		t.Errorf("-variant jvm -format v1: exit %d %q", code, stderr)
	}
}
