package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/watchtarget"
)

func TestMain(m *testing.M) {
	// The checkpoint workload starts `leakui work broker` as this same executable;
	// under go test that is the test binary, so it serves the broker here.
	if os.Getenv(workBrokerEnv) == "1" {
		os.Exit(run(context.Background(), []string{"work", "broker"}, stdio{os.Stdin, os.Stdout, os.Stderr}))
	}
	// The watches' tests start this binary again as a Go program to watch.
	if v := os.Getenv(watchtarget.Env); v != "" {
		os.Exit(watchtarget.Main(v))
	}
	// The binary leakuiBinary built goes with the run.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if binaryDir != "" {
			os.RemoveAll(binaryDir)
		}
		os.Exit(code)
	}))
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
	binaryDir  string
)

// leakuiBinary builds ./cmd/leakui once per test run: the lab runs workloads as
// child processes of the real binary, and crash tests kill a real server.
func leakuiBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		binaryDir, binaryErr = os.MkdirTemp("", "leakui-bin-")
		if binaryErr != nil {
			return
		}
		binaryPath = filepath.Join(binaryDir, "leakui")
		out, err := exec.Command("go", "build", "-o", binaryPath, ".").CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// server is a real `leakui serve` child process.
type server struct {
	cmd  *exec.Cmd
	base string
	// debug is the -debug-pprof base URL ("http://127.0.0.1:PORT"), when asked for.
	debug string
	log   *syncBuffer
	done  chan error
	dir   string // the -data directory
}

// dataDir is the server's -data directory.
func (s *server) dataDir() string { return s.dir }

// syncBuffer collects a child's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer runs `leakui serve -addr 127.0.0.1:0 -data DIR args…` and waits for
// it to listen.
func startServer(t testing.TB, dir string, args ...string) *server {
	t.Helper()
	return startServerVia(t, nil, dir, args...)
}

// startServerVia is startServer with the server started through the command
// prefix (such as a shell that mounts or limits something first and then
// execs the server, so that its process is the server's).
func startServerVia(t testing.TB, prefix []string, dir string, args ...string) *server {
	t.Helper()
	bin := leakuiBinary(t)
	argv := append(append(append([]string{}, prefix...), bin, "serve", "-addr", "127.0.0.1:0", "-data", dir), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: &syncBuffer{}, done: make(chan error, 1), dir: dir}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case line := <-lines:
		addr, ok := strings.CutPrefix(line, "leakui listening on ")
		if !ok {
			t.Fatalf("unexpected first line %q", line)
		}
		s.base = addr
		if slices.Contains(args, "-debug-pprof") {
			select {
			case line := <-lines:
				debug, ok := strings.CutPrefix(line, "leakui debug endpoint on ")
				if !ok {
					t.Fatalf("unexpected second line %q", line)
				}
				s.debug = strings.TrimSuffix(debug, "/debug/pprof/")
			case <-time.After(10 * time.Second):
				t.Fatal("leakui serve -debug-pprof did not print its debug address")
			}
		}
	case err := <-s.done:
		t.Fatalf("leakui serve exited: %v\n%s", err, s.log.String())
	case <-time.After(60 * time.Second):
		t.Fatal("leakui serve did not start")
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and waits for a clean exit (a no-op once stopped).
func (s *server) stop(t testing.TB) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("leakui serve did not stop on SIGTERM\n%s", s.log.String())
	}
}

// kill sends SIGKILL and waits.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

func (s *server) getJSON(t *testing.T, path string, v any) int {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode
}

func (s *server) post(t *testing.T, path, body string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Post(s.base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// runState is the part of GET /api/runs/{id} the tests read.
type runState struct {
	ID        string           `json:"id"`
	Status    string           `json:"status"`
	Verdict   string           `json:"verdict"`
	Reason    string           `json:"reason"`
	Details   []string         `json:"details"`
	Error     string           `json:"error"`
	Counters  map[string]int64 `json:"counters"`
	Step      int64            `json:"step"`
	Steps     int64            `json:"steps"`
	Snapshots int              `json:"snapshots"`
	ReportURL string           `json:"report_url"`
	Progress  struct {
		Points []struct {
			Step       int64 `json:"step"`
			Goroutines int64 `json:"goroutines"`
			HeapInuse  int64 `json:"heap_inuse"`
			RSS        int64 `json:"rss"`
			OffHeap    int64 `json:"offheap"`
		} `json:"points"`
		Phases []struct {
			Name  string `json:"name"`
			Step  int64  `json:"step"`
			Steps int64  `json:"steps"`
		} `json:"phases"`
	} `json:"progress"`
}

// waitRun polls a run until it leaves the running state.
func (s *server) waitRun(t *testing.T, id string, within time.Duration) runState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		var r runState
		s.getJSON(t, "/api/runs/"+id, &r)
		if r.Status != "running" {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("run %s still running after %s (step %d of %d)\n%s", id, within, r.Step, r.Steps, s.log.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
