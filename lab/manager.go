package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// Config configures a Manager. Zero values mean the defaults.
type Config struct {
	// Executable is the leakui binary to run as `leakui work …` (default: this
	// process's own, os.Executable).
	Executable string
	Recorder   Recorder
	Logger     *slog.Logger
	// MaxRuns is how many runs may go at once (default 1).
	MaxRuns int
	// Deadline bounds one run (default 30 minutes).
	Deadline time.Duration
	Limits   Limits
	// Brokers points the checkpoint workload at a Kafka cluster instead of its
	// embedded broker.
	Brokers string
	// TempDir holds each run's directory (its log, a recovery run's Kafka log
	// directory) while it runs (default os.TempDir()); it is made when missing.
	TempDir string
	// Snapshots is roughly how many captures a run gets whatever its size
	// (default 15, so 10–20).
	Snapshots int
	// Hold is how long the child stays alive after its last step, for the final
	// capture (default 60 s; the lab ends it sooner once captured).
	Hold time.Duration
	// Lease is how long a recorded progress keeps the run ours (default 30 s); it
	// is renewed at least every Lease/3.
	Lease time.Duration
	// NoCapture turns the captures off (to measure what they cost).
	NoCapture bool
	// Child bounds each run's child process: memory, CPU time and the quota of
	// its run directory (zero fields: the defaults).
	Child ChildLimits
}

// Manager starts runs and owns them until they end. Close stops them all.
type Manager struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client

	mu     sync.Mutex
	runs   map[string]*Run
	closed bool
	wg     sync.WaitGroup
}

// killGrace is how long a stopped child may take to clean up after SIGTERM before
// its process group gets SIGKILL.
const killGrace = 3 * time.Second

// The defaults of Config, exported so that the command line shows the same values.
const (
	// DefaultMaxRuns is how many runs may go at once.
	DefaultMaxRuns = 1
	// DefaultDeadline is the longest a run may take before it is stopped.
	DefaultDeadline = 30 * time.Minute
	// DefaultSnapshots is about how many heap and goroutine snapshots a run captures.
	DefaultSnapshots = 15
	// DefaultHold is how long a workload holds its leak for the last captures.
	DefaultHold = 60 * time.Second
	// DefaultLease is how long a run survives its server's silence before another
	// replica marks it interrupted.
	DefaultLease = 30 * time.Second
)

// errShutdown is the cancel cause when the server shuts down.
var errShutdown = errors.New("the server shut down")

// errCancelled is the cancel cause when a user cancels.
var errCancelled = errors.New("cancelled")

// NewManager returns a manager; it starts nothing until Start.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("lab: finding this binary: %w", err)
		}
		cfg.Executable = exe
	}
	if cfg.Recorder == nil {
		return nil, errors.New("lab: a Recorder is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = DefaultMaxRuns
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	if cfg.Snapshots <= 0 {
		cfg.Snapshots = DefaultSnapshots
	}
	if cfg.Hold <= 0 {
		cfg.Hold = DefaultHold
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	cfg.Child = cfg.Child.withDefaults()
	return &Manager{
		cfg: cfg, log: cfg.Logger, runs: map[string]*Run{},
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: sameOrigin},
	}, nil
}

// Lease is how long a recorded progress keeps a run ours.
func (m *Manager) Lease() time.Duration { return m.cfg.Lease }

// Start validates the spec and starts the run in the background. It fails with
// ErrBusy when MaxRuns are running. Once there is room, and before anything runs,
// it calls record (under the manager's lock), where the caller records the run as
// running under id; an error from record starts nothing.
func (m *Manager) Start(id string, spec Spec, record func(spec Spec) error) (*Run, error) {
	if err := m.Check(&spec); err != nil {
		return nil, err
	}
	return m.launch(id, spec, Progress{}, record, m.execute)
}

// launch registers a run (within MaxRuns), records it, and runs body in the
// background under the run's deadline; the run is done when body returns.
func (m *Manager) launch(id string, spec Spec, initial Progress, record func(Spec) error, body func(ctx context.Context, run *Run)) (*Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errShutdown
	}
	if len(m.runs) >= m.cfg.MaxRuns {
		return nil, fmt.Errorf("%w: %d of %d allowed are running; wait for one to finish or cancel it", ErrBusy, len(m.runs), m.cfg.MaxRuns)
	}
	if record != nil {
		if err := record(spec); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, cancelDeadline := context.WithTimeoutCause(ctx, m.cfg.Deadline, fmt.Errorf("the run's deadline of %s passed", m.cfg.Deadline))
	now := time.Now()
	initial.Status, initial.StartedAt, initial.UpdatedAt = StatusRunning, now, now
	if initial.Counters == nil {
		initial.Counters = map[string]int64{}
	}
	run := &Run{ID: id, Spec: spec, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}), progress: initial}
	m.runs[id] = run
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer cancelDeadline()
		body(ctx, run)
		m.mu.Lock()
		delete(m.runs, id)
		m.mu.Unlock()
		close(run.done)
	}()
	return run, nil
}

// Check validates a spec against the limits without starting it.
// The budget of the child (ChildLimits) is part of the check.
func (m *Manager) Check(spec *Spec) error {
	if err := spec.Normalize(m.cfg.Limits); err != nil {
		return err
	}
	return spec.checkBudget(m.cfg.Child)
}

// Get returns a run running on this server.
func (m *Manager) Get(id string) (*Run, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[id]
	return r, ok
}

// MaxRuns is how many runs may go at once.
func (m *Manager) MaxRuns() int { return m.cfg.MaxRuns }

// Running is the number of runs going now.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.runs)
}

// Cancel stops a run: its child's process group is killed and the run ends as
// cancelled, with what it captured so far.
func (m *Manager) Cancel(id string) error {
	run, ok := m.Get(id)
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotRunning, id)
	}
	run.cancel(errCancelled)
	return nil
}

// Close stops every run (they end as interrupted) and waits for them.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	for _, r := range m.runs {
		r.cancel(errShutdown)
	}
	m.mu.Unlock()
	m.wg.Wait()
	m.client.CloseIdleConnections()
	return nil
}

// execute runs one child from start to end and records everything.
func (m *Manager) execute(ctx context.Context, run *Run) {
	log := m.log.With("run", run.ID, "workload", run.Spec.Workload)
	err := m.runChild(ctx, run, log)
	final := run.update(func(pr *Progress) {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errCancelled):
			pr.Status, pr.Error = StatusCancelled, "cancelled by a user"
		case errors.Is(cause, errShutdown):
			pr.Status, pr.Error = StatusInterrupted, "the server shut down before the run finished"
		case cause != nil && ctx.Err() != nil:
			pr.Status, pr.Error = StatusFailed, cause.Error()
		case err != nil:
			pr.Status, pr.Error = StatusFailed, err.Error()
		default:
			pr.Status = StatusDone
		}
		if pr.Status == StatusDone || pr.Status == StatusCancelled {
			pr.Verdict, pr.Reason, pr.Details = decide(run.Spec, *pr)
		}
		pr.UpdatedAt = time.Now()
		pr.ElapsedMs = pr.UpdatedAt.Sub(pr.StartedAt).Milliseconds()
		pr.RemainingMs = 0
	})
	rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.cfg.Recorder.Finish(rctx, run.ID, run.Spec, final); err != nil {
		log.Error("recording the end of a run", "err", err)
	}
	log.Info("run ended", "status", final.Status, "verdict", final.Verdict, "steps", final.Step)
}

// runChild starts the child, follows its events, captures its profiles and waits
// for it. It returns when the child is gone.
func (m *Manager) runChild(ctx context.Context, run *Run, log *slog.Logger) error {
	if m.cfg.TempDir != "" {
		if err := os.MkdirAll(m.cfg.TempDir, 0o700); err != nil {
			return fmt.Errorf("run directory: %w", err)
		}
	}
	dir, err := os.MkdirTemp(m.cfg.TempDir, "leakui-run-")
	if err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	defer os.RemoveAll(dir)
	logPath := filepath.Join(dir, "run.log")
	args := append(run.Spec.Args(), "-json", "-sync", "-pprof", "127.0.0.1:0", "-hold", m.cfg.Hold.String(), "-log", logPath)
	if run.Spec.Workload == WorkloadCheckpoint && m.cfg.Brokers != "" {
		// The run's id names its checkpoint topic, so that the runs of several
		// replicas (or of -max-runs above 1) on one cluster never share a topic.
		args = append(args, "-brokers", m.cfg.Brokers, "-job-id", run.ID)
	}
	if run.Spec.Workload == WorkloadRecovery {
		args = append(args, "-dir", filepath.Join(dir, "kafka-logs"))
		if run.Spec.Variant == VariantJVM {
			args = append(args, "-jvm-out", filepath.Join(dir, "jvm"))
		}
	}
	cmd := exec.Command(m.cfg.Executable, args...)
	cmd.SysProcAttr = childAttr()
	cmd.Env = run.Spec.childEnv()
	cmd.Dir = dir
	stderr := &tail{max: 8 << 10}
	limitsMet := &markerWatch{}
	cmd.Stderr = io.MultiWriter(stderr, limitsMet)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	// With -sync the child waits for a line after every ready and progress event;
	// the lab answers at once, except that it first captures at the steps it
	// snapshots, so a snapshot shows exactly that step however fast steps go.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	ack := func() { stdin.Write([]byte("\n")) }
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", m.cfg.Executable, err)
	}
	pid := cmd.Process.Pid
	if err := applyChildLimits(pid, m.cfg.Child); err != nil {
		killGroup(pid, syscall.SIGKILL)
		cmd.Wait()
		return fmt.Errorf("limiting the child: %w", err)
	}
	log.Info("run started", "pid", pid, "args", args)
	stopDiskWatch := make(chan struct{})
	diskWatchDone := make(chan struct{})
	go func() {
		defer close(diskWatchDone)
		watchDisk(dir, m.cfg.Child.Disk, run.cancel, stopDiskWatch)
	}()

	// Whatever happens, the child's process group dies when the context ends.
	stopKiller := make(chan struct{})
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		select {
		case <-ctx.Done():
			// SIGTERM first, so the workload can clean up (the checkpoint workload
			// deletes its topic on a real cluster); SIGKILL whatever is left.
			killGroup(pid, syscall.SIGTERM)
			select {
			case <-stopKiller:
			case <-time.After(killGrace):
				killGroup(pid, syscall.SIGKILL)
			}
		case <-stopKiller:
		}
	}()

	every := int64(1)
	var pprofBase string
	var sawDone bool
	lastRecorded := time.Time{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var ev child.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			log.Warn("a line from the child is not an event", "line", truncate(sc.Text(), 200))
			continue
		}
		now := time.Now()
		switch ev.Kind {
		case child.EventReady:
			pprofBase = "http://" + ev.Pprof
			m.snapshot(ctx, run, pprofBase, 0, log)
			ack()
		case child.EventProgress, child.EventDone:
			run.update(func(p *Progress) { p.apply(ev, run.Spec.Workload, now) })
			phase := isPhase(ev, run.Spec.Workload) // its steps are not the unit's: no snapshot
			if ev.Steps > 0 && !phase {
				every = max(1, (ev.Steps+int64(m.cfg.Snapshots)-1)/int64(m.cfg.Snapshots))
			}
			if ev.Kind == child.EventProgress {
				if !phase && ev.Step%every == 0 && ev.Step < ev.Steps {
					m.snapshot(ctx, run, pprofBase, ev.Step, log)
				}
				ack()
			}
			if now.Sub(lastRecorded) >= m.cfg.Lease/3 || lastRecorded.IsZero() {
				lastRecorded = now
				if err := m.recordProgress(ctx, run); err != nil && ctx.Err() == nil {
					log.Warn("recording progress", "err", err)
				}
			}
			if ev.Kind == child.EventDone {
				sawDone = true
				// The child now holds with everything it leaked: the final
				// snapshot, then end it.
				m.snapshot(ctx, run, pprofBase, ev.Step, log)
				killGroup(pid, syscall.SIGTERM)
			}
		case child.EventError:
			run.update(func(p *Progress) { p.Error = ev.Message })
		}
	}
	stdin.Close()
	waitErr := cmd.Wait()
	close(stopKiller)
	<-killerDone
	close(stopDiskWatch)
	<-diskWatchDone
	used := dirUsage(dir)
	m.saveLog(run, logPath, log)
	m.saveJVMOutputs(run, filepath.Join(dir, "jvm"), log)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if used > m.cfg.Child.Disk {
		return fmt.Errorf("the run directory grew to %s, past its quota of %s (-run-disk)", formatBytes(used), formatBytes(m.cfg.Child.Disk))
	}
	if !sawDone {
		msg := stderr.String()
		if msg == "" && waitErr != nil {
			msg = waitErr.Error()
		}
		if limit := explainChildEnd(cmd.ProcessState, limitsMet.text(), m.cfg.Child); limit != "" {
			msg = limit // the child's last line may name a path of the server's
		}
		return fmt.Errorf("the workload ended before its last step: %s", msg)
	}
	return nil
}

// snapshot captures a heap and a goroutine profile from the child (and its
// goroutineleak profile when it serves one) and stores them.
func (m *Manager) snapshot(ctx context.Context, run *Run, base string, step int64, log *slog.Logger) {
	if m.cfg.NoCapture || base == "" || ctx.Err() != nil {
		return
	}
	caps, err := captureProfiles(ctx, m.client, base, step, !run.Spec.quietHeap(), time.Now)
	if err != nil && ctx.Err() == nil {
		log.Warn("capture failed", "step", step, "err", err)
	}
	stored := 0
	for _, c := range caps {
		if err := m.cfg.Recorder.Capture(ctx, run.ID, c); err != nil {
			log.Error("storing a capture", "err", err)
			continue
		}
		if c.Role != RoleGoroutineLeak {
			stored++
		}
	}
	if stored == 2 {
		run.update(func(p *Progress) { p.Snapshots++ })
	}
}

// saveLog stores the run's log as a capture.
func (m *Manager) saveLog(run *Run, path string, log *slog.Logger) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return
	}
	p, _ := run.State()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := Capture{Role: "log", Step: p.Step, Name: run.Spec.Workload + ".log", Data: b, TakenAt: time.Now()}
	if err := m.cfg.Recorder.Capture(ctx, run.ID, c); err != nil {
		log.Error("storing the run's log", "err", err)
	}
}

// saveJVMOutputs stores what a jvm variant run captured of its JVM, the two
// capture bundles of `leakui capture jvm` (before the streams and with them
// open), as captures of role RoleJVM.
func (m *Manager) saveJVMOutputs(run *Run, dir string, log *slog.Logger) {
	if run.Spec.Variant != VariantJVM {
		return
	}
	p, _ := run.State()
	for _, name := range []string{"capture-before.tar.gz", "capture-after.tar.gz"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		c := Capture{Role: RoleJVM, Step: p.Step, Name: "jvm-" + name, Data: b, TakenAt: time.Now()}
		if err := m.cfg.Recorder.Capture(ctx, run.ID, c); err != nil {
			log.Error("storing a capture bundle", "name", name, "err", err)
		}
		cancel()
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
