package lab

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/workload"
)

// TestMain doubles as a small workload: when LEAKUI_LAB_CHILD is set the test
// binary is the child the manager starts (`work <name> -cycles N …`). It is a real
// process with a real pprof endpoint that leaks real goroutines, one per cycle in
// the leaky variant, so the manager's tests need no Kafka.
func TestMain(m *testing.M) {
	if os.Getenv("LEAKUI_LAB_CHILD") != "" {
		os.Exit(childMain(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

func childMain(args []string) int {
	if len(args) < 2 || args[0] != "work" {
		fmt.Fprintln(os.Stderr, "usage: work NAME [flags]")
		return 2
	}
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	variant := fs.String("variant", "leaky", "")
	fs.String("mode", "active", "")
	cycles := fs.Int("cycles", 10, "")
	fs.Int("tasks", 1, "")
	pprofAddr := fs.String("pprof", "127.0.0.1:0", "")
	logPath := fs.String("log", "", "")
	hold := fs.Duration("hold", 0, "")
	asJSON := fs.Bool("json", false, "")
	fs.String("brokers", "", "")
	if err := fs.Parse(args[2:]); err != nil {
		return 2
	}
	if os.Getenv("LEAKUI_LAB_CHILD") == "fail" {
		fmt.Fprintln(os.Stderr, "leakui work checkpoint: cannot reach the broker at 127.0.0.1:1")
		return 1
	}
	stepDelay, _ := time.ParseDuration(os.Getenv("LEAKUI_LAB_STEP"))
	d, err := workload.ListenDebug(*pprofAddr)
	if err != nil {
		return 1
	}
	defer d.Close()
	var log *os.File
	if *logPath != "" {
		log, _ = os.Create(*logPath)
		defer log.Close()
	}
	em := workload.NewEmitter(os.Stdout, *asJSON)
	em.Emit(workload.Event{Kind: workload.EventReady, Pprof: d.Addr()})
	stop := make(chan struct{})
	var leaked sync.WaitGroup
	starts, stops := int64(0), int64(0)
	for c := 1; c <= *cycles; c++ {
		starts++
		leaked.Add(1)
		go func() { defer leaked.Done(); <-stop }() // the "consumer"'s poll loop
		if *variant != "leaky" {
			stops++
		}
		if log != nil {
			fmt.Fprintf(log, "2026-01-01 00:00:%02d.000 [main] KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset 0\n", c%60)
		}
		time.Sleep(stepDelay)
		open := starts - stops
		if *variant != "leaky" {
			open = 0
		}
		em.Emit(workload.Event{Kind: workload.EventProgress, Step: int64(c), Steps: int64(*cycles), StepName: "cycle",
			Memory: workload.ReadMemory(), Counters: map[string]int64{"cycle": int64(c), "cycles": int64(*cycles),
				"consumer_starts": starts, "consumer_stops": stops, "open_consumers": open}})
	}
	if *variant != "leaky" {
		close(stop)
		leaked.Wait()
	}
	em.Emit(workload.Event{Kind: workload.EventDone, Step: int64(*cycles), Steps: int64(*cycles), StepName: "cycle",
		Memory: workload.ReadMemory(), Counters: map[string]int64{"consumer_starts": starts, "consumer_stops": stops}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	workload.Hold(ctx, *hold)
	return 0
}

// memRecorder keeps what the manager records, for the tests.
type memRecorder struct {
	mu       sync.Mutex
	progress map[string][]Progress
	captures map[string][]Capture
	finished map[string]Progress
}

func newMemRecorder() *memRecorder {
	return &memRecorder{progress: map[string][]Progress{}, captures: map[string][]Capture{}, finished: map[string]Progress{}}
}

func (m *memRecorder) Progress(_ context.Context, id string, p Progress, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.progress[id] = append(m.progress[id], p)
	return nil
}

func (m *memRecorder) Capture(_ context.Context, id string, c Capture) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.captures[id] = append(m.captures[id], c)
	return nil
}

func (m *memRecorder) Finish(_ context.Context, id string, _ Spec, p Progress) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finished[id] = p
	return nil
}

func (m *memRecorder) roles(id string) map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for _, c := range m.captures[id] {
		out[c.Role]++
	}
	return out
}

// newTestManager returns a manager whose children are this test binary.
func newTestManager(t *testing.T, cfg Config) (*Manager, *memRecorder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := newMemRecorder()
	cfg.Executable, cfg.Recorder, cfg.TempDir = exe, rec, t.TempDir()
	if cfg.Hold == 0 {
		cfg.Hold = 30 * time.Second
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, rec
}

func childEnv(t *testing.T, mode, step string) {
	t.Setenv("LEAKUI_LAB_CHILD", mode)
	t.Setenv("LEAKUI_LAB_STEP", step)
}

func wait(t *testing.T, r *Run, d time.Duration) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(d):
		t.Fatalf("run %s did not end within %s", r.ID, d)
	}
}

func hasProcess(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}
