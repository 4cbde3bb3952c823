package lab

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/testworkload"
)

// TestMain doubles as a small workload (internal/testworkload): when
// LEAKUI_LAB_CHILD is set the test binary is the child the manager starts.
func TestMain(m *testing.M) {
	if os.Getenv("LEAKUI_LAB_CHILD") != "" {
		os.Exit(testworkload.Main(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
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
