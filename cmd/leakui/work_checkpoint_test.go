package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/testtool"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/lab/child"
)

// runCheckpoint runs `leakui work checkpoint args…` in-process.
func runCheckpoint(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"work", "checkpoint"}, args...), stdio{strings.NewReader(""), &out, &errb})
	return code, out.String(), errb.String()
}

// decodeEvents parses JSON event lines.
func decodeEvents(t *testing.T, stdout string) []child.Event {
	t.Helper()
	var events []child.Event
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" || line[0] != '{' {
			continue // human-readable lines, when a test mixes them in
		}
		var e child.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %d %q: %v", i+1, line, err)
		}
		events = append(events, e)
	}
	return events
}

// grepCount runs the real grep -c -F: the count an SRE would take from the log.
func grepCount(t *testing.T, pattern, file string) int64 {
	return greptest.Count(t, pattern, false, file)
}

func TestWorkCheckpointJSONEvents(t *testing.T) {
	testtool.Require(t, "grep", "grep")
	const cycles = 6
	ignore := goleak.IgnoreCurrent()
	logPath := filepath.Join(t.TempDir(), "samza.log")
	// A storm where every second container reads its checkpoints: rebalances 1, 3
	// and 5 read (round(k/2) grows), the others are interrupted in their first read,
	// fail, and have their processor restarted.
	code, stdout, stderr := runCheckpoint(t, "-json", "-read-fraction", "0.5", "-cycles", strconv.Itoa(cycles), "-tasks", "3", "-log", logPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	events := decodeEvents(t, stdout)
	if len(events) != cycles+2 {
		t.Fatalf("%d events, want ready, %d progress, done", len(events), cycles)
	}
	if events[0].Kind != child.EventReady || events[0].Pprof == "" {
		t.Errorf("first event %+v, want ready with the pprof address", events[0])
	}
	for k := 1; k <= cycles; k++ {
		e := events[k]
		reads := int64((k + 1) / 2)
		want := map[string]int64{"cycle": int64(k), "cycles": cycles, "containers": int64(k), "first_reads": reads,
			"interrupts": int64(k) - reads, "failed_containers": int64(k) - reads, "processor_restarts": int64(k) - reads,
			"consumer_starts": int64(k), "consumer_stops": reads, "open_consumers": int64(k) - reads}
		if e.Kind != child.EventProgress || e.Step != int64(k) || e.Steps != cycles {
			t.Errorf("event %d: %+v, want progress %d/%d", k, e, k, cycles)
		}
		for key, v := range want {
			if got, ok := e.Counters[key]; !ok || got != v {
				t.Errorf("progress %d: %s = %d (present %v), want %d", k, key, got, ok, v)
			}
		}
		if e.Memory.Goroutines <= 0 || e.Memory.HeapInuse <= 0 || e.Memory.RSS <= 0 {
			t.Errorf("progress %d: memory figures missing: %+v", k, e.Memory)
		}
	}
	done := events[cycles+1]
	if done.Kind != child.EventDone || !strings.Contains(done.Message, "scenario=storm variant=leaky mode=active") {
		t.Fatalf("last event %+v, want done", done)
	}
	for key, v := range map[string]int64{
		"consumer_starts": cycles, "consumer_stops": 3, "open_consumers": cycles - 3,
		"poll_loop_goroutines": cycles - 3, "reader_goroutines": cycles - 3, "refused_registrations": 0,
		"checkpoints_read": 3 * 3, "checkpoints_written": 3 * 3, "checkpoints_seeded": 3 * 25,
	} {
		if got := done.Counters[key]; got != v {
			t.Errorf("done: %s = %d, want %d", key, got, v)
		}
	}
	// The log, counted like a production log, says the same.
	for pattern, key := range map[string]string{
		"Starting the checkpoint SystemConsumer from oldest offset": "consumer_starts",
		": Consumer started":                                   "consumer_starts",
		"Stopping Samza kafkaConsumer ":                        "consumer_stops",
		"Stopping system consumer":                             "manager_consumer_stops",
		"Caught exception/error while initializing container.": "failed_containers",
		"the application starts it again":                      "processor_restarts",
	} {
		if got := grepCount(t, pattern, logPath); got != done.Counters[key] {
			t.Errorf("grep -c %q = %d, done event %s = %d", pattern, got, key, done.Counters[key])
		}
	}
	// The preset reads the model's log as it would a real one: the consumers share
	// upstream's client id, so that pair falls back to the counts; the poll threads
	// name each consumer left open.
	code, out, errOut := countCLI(t, nil, "count", "-preset", "samza-2785", "-json", logPath)
	var rep logs.Report
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("count: exit %d, %v: %s", code, err, errOut)
	}
	kc, _ := rep.Pair("kafka consumers")
	pt, _ := rep.Pair("consumer poll threads")
	if kc.Basis != logs.BasisCounts || kc.SharedKey != "kafka:kafka_consumer-leakui_checkpoint-1" || kc.Open != done.Counters["open_consumers"] {
		t.Errorf("kafka consumers: basis %q, shared key %q, %d open", kc.Basis, kc.SharedKey, kc.Open)
	}
	if pt.Basis != logs.BasisKeys || int64(len(pt.UnclosedKeys)) != done.Counters["open_consumers"] || pt.Closes != done.Counters["consumer_stops"] {
		t.Errorf("poll threads: basis %q, %d never shut down, %d shut down; the run left %d open", pt.Basis, len(pt.UnclosedKeys), pt.Closes, done.Counters["open_consumers"])
	}
	// The command closed everything it started: pprof server, consumers, broker.
	goleak.VerifyNone(t, ignore)
}

func TestWorkCheckpointFixedVariantLeavesNothingOpen(t *testing.T) {
	code, stdout, stderr := runCheckpoint(t, "-json", "-variant", "pr1674", "-mode", "active", "-cycles", "5", "-tasks", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	events := decodeEvents(t, stdout)
	done := events[len(events)-1].Counters
	if done["consumer_starts"] != 5 || done["consumer_stops"] != 5 || done["open_consumers"] != 0 || done["poll_loop_goroutines"] != 0 {
		t.Errorf("done counters %v, want 5 starts, 5 stops, nothing open", done)
	}
}

func TestWorkCheckpointHumanOutput(t *testing.T) {
	code, stdout, stderr := runCheckpoint(t, "-cycles", "2", "-tasks", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "pprof endpoint: http://127.0.0.1:") ||
		!strings.HasPrefix(lines[2], "progress cycle 2/2 ") || !strings.Contains(lines[3], "open_consumers=2") {
		t.Errorf("human output:\n%s", stdout)
	}
}

func TestWorkCheckpointBadFlagsFailWithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-variant", "bogus"}, {"-mode", "passive"}, {"-cycles", "0"}, {"-cycles", "x"},
		{"-cycles", "2000000"}, {"-tasks", "-3"}, {"-brokers", "nohost"}, {"-brokers", ","},
		{"-job", "a/b"}, {"-fetch-threshold", "0"}, {"-history", "0"}, {"-nosuchflag"}, {"stray"},
		{"-scenario", "hurricane"}, {"-read-fraction", "0"}, {"-read-fraction", "1.5"}, {"-config", "bogus"},
		{"-config", "task.checkpoint.system=kafka"}, {"-config", "samza.internal.task.checkpoint.consumer.stop.after.first.read=maybe"},
	} {
		code, stdout, stderr := runCheckpoint(t, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "leakui work checkpoint: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line on stderr", args, code, stdout, stderr)
		}
	}
	code, _, stderr := runCheckpoint(t, "-h")
	if code != 0 || !strings.Contains(stderr, "-variant") || !strings.Contains(stderr, "-hold") {
		t.Errorf("-h: exit %d, usage %q", code, stderr)
	}
}

func TestWorkCheckpointUnreachableBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, stdout, stderr := runCheckpoint(t, "-json", "-brokers", addr)
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "broker unreachable") || !strings.Contains(stderr, addr) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line naming %s", code, stdout, stderr, addr)
	}
}

// TestWorkCheckpointProcess runs the real binary: the pprof endpoint while it holds,
// and SIGTERM at any point.
func TestWorkCheckpointProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "leakui")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("hold keeps the pprof endpoint answering", func(t *testing.T) {
		p := startProcess(t, bin, "-json", "-cycles", "5", "-tasks", "2", "-hold", "1m")
		ready := p.next(t)
		p.until(t, func(e child.Event) bool { return e.Kind == child.EventDone })
		base := "http://" + ready.Pprof
		for range 2 { // still answering a while after the last cycle
			dump := httpGet(t, base+"/debug/pprof/goroutine?debug=1")
			// A storm at the default read fraction: none of the 5 containers reads.
			if n := goroutinesWith(dump, "checkpoint.(*SystemConsumer).pollLoop"); n != 5 {
				t.Errorf("goroutine profile shows %d poll loops, want 5 leaked consumers", n)
			}
			if n := goroutinesWith(dump, "kafka-go.(*reader).run"); n != 5 {
				t.Errorf("goroutine profile shows %d kafka-go readers, want 5", n)
			}
			// The broker serves from its own process (`leakui work broker`).
			if n := goroutinesWith(dump, "franz-go/pkg/kfake."); n != 0 {
				t.Errorf("goroutine profile shows %d kfake goroutines; the broker belongs in its own process", n)
			}
			var vars struct{ Checkpoint map[string]int64 }
			if err := json.Unmarshal([]byte(httpGet(t, base+"/debug/vars")), &vars); err != nil {
				t.Fatal(err)
			}
			if vars.Checkpoint["open_consumers"] != 5 || vars.Checkpoint["cycle"] != 5 {
				t.Errorf("expvar checkpoint = %v", vars.Checkpoint)
			}
			time.Sleep(500 * time.Millisecond)
		}
		if code, took := p.terminate(t); code != 0 || took > time.Second {
			t.Errorf("SIGTERM while holding: exit %d after %v, want 0 within a second", code, took)
		}
	})

	t.Run("SIGTERM in the middle of the run", func(t *testing.T) {
		p := startProcess(t, bin, "-json", "-cycles", "1000000", "-tasks", "2")
		p.until(t, func(e child.Event) bool { return e.Kind == child.EventProgress && e.Step >= 30 })
		code, took := p.terminate(t)
		if code != exitInterrupted || took > time.Second {
			t.Errorf("SIGTERM mid-run: exit %d after %v, want %d within a second", code, took, exitInterrupted)
		}
		last := p.rest(t)
		if len(last) == 0 || last[len(last)-1].Kind != child.EventError || !strings.Contains(last[len(last)-1].Message, "interrupted after") {
			t.Errorf("last events %+v, want an error event saying it was interrupted", last)
		}
		if !strings.Contains(p.stderr.String(), "interrupted after") || strings.Count(p.stderr.String(), "\n") != 1 {
			t.Errorf("stderr %q, want one line", p.stderr.String())
		}
	})
}

// process is a running `leakui work checkpoint -json` child.
type process struct {
	cmd    *exec.Cmd
	events chan child.Event
	stderr bytes.Buffer
}

func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{events: make(chan child.Event, 1<<16)}
	p.cmd = exec.Command(bin, append([]string{"work", "checkpoint"}, args...)...)
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	go func() {
		defer close(p.events)
		s := bufio.NewScanner(stdout)
		s.Buffer(make([]byte, 1<<20), 1<<20)
		for s.Scan() {
			var e child.Event
			if json.Unmarshal(s.Bytes(), &e) == nil {
				p.events <- e
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	return p
}

// next returns the next event, failing after 30 s.
func (p *process) next(t *testing.T) child.Event {
	t.Helper()
	select {
	case e, ok := <-p.events:
		if !ok {
			t.Fatalf("the process ended early: %s", p.stderr.String())
		}
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("no event for 30 s")
	}
	return child.Event{}
}

// until skips events until cond holds.
func (p *process) until(t *testing.T, cond func(child.Event) bool) child.Event {
	t.Helper()
	for {
		if e := p.next(t); cond(e) {
			return e
		}
	}
}

// rest returns the events left once the process has exited.
func (p *process) rest(t *testing.T) []child.Event {
	var out []child.Event
	for e := range p.events {
		out = append(out, e)
	}
	return out
}

// terminate sends SIGTERM and returns the exit status and how long the exit took.
func (p *process) terminate(t *testing.T) (int, time.Duration) {
	t.Helper()
	began := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := p.cmd.Wait()
	took := time.Since(began)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode(), took
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// goroutinesWith sums the counts of the debug=1 goroutine profile groups whose stack
// names fn.
func goroutinesWith(profile, fn string) int {
	total := 0
	for _, group := range strings.Split(profile, "\n\n") {
		m := regexp.MustCompile(`^(\d+) @`).FindStringSubmatch(group)
		if m != nil && strings.Contains(group, fn) {
			n, _ := strconv.Atoi(m[1])
			total += n
		}
	}
	return total
}
