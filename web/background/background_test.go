package background_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/jobs"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/serrors"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env is a store and a job runner over one SQLite file, as a server has them.
type env struct {
	db  *store.DB
	dir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &env{db: db, dir: dir}
}

// runner returns a job runner, not started, over the env's file.
func (e *env) runner(t *testing.T) *jobs.Runner {
	t.Helper()
	b, err := jobssqlite.Open(context.Background(), filepath.Join(e.dir, sqlite.File))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return jobs.New(b, jobs.Config{Queues: map[string]int{background.Queue: 1}, PollInterval: 20 * time.Millisecond,
		RescueAfter: 3 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// report stores a report analyzing, with a file of its own.
func (e *env) report(t *testing.T, name string) string {
	t.Helper()
	data := []byte("dump " + name)
	sum := sha256.Sum256(data)
	rep := &store.Report{Kind: "jvm-heapdump", Status: store.ReportAnalyzing}
	up := store.Upload{Name: name, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Kind: "hprof",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	if err := e.db.CreateReport(context.Background(), rep, []store.Upload{up}); err != nil {
		t.Fatal(err)
	}
	return rep.ID
}

// start starts b and stops it when the test ends.
func start(t *testing.T, b *background.Background) {
	t.Helper()
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(context.Background()); err != nil {
			t.Errorf("stopping: %v", err)
		}
	})
}

// waitStatus waits until report id is no longer analyzing, and returns it.
func (e *env) waitStatus(t *testing.T, id string) *store.Report {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		rep, err := e.db.Report(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status != store.ReportAnalyzing || time.Now().After(deadline) {
			return rep
		}
	}
}

// TestHeapDumpOutcomes runs four analyses to their outcomes: one done (its
// summary stored), one whose dump is at fault (failed at once with its 422),
// one that panics (failed with a 500, the process alive), and one failing
// twice for the server's reasons (a 503) before it is done: it is tried again,
// and its state says why it waits meanwhile.
func TestHeapDumpOutcomes(t *testing.T) {
	e := newEnv(t)
	ok, bad, panics, busy := e.report(t, "ok"), e.report(t, "bad"), e.report(t, "panics"), e.report(t, "busy")
	var busyAttempts atomic.Int32
	retried := make(chan struct{})
	var once sync.Once
	b := background.New(background.Config{Store: e.db, Jobs: e.runner(t), MaxQueuedPerClient: 4,
		Retries: background.Retries{Attempts: 5, First: 300 * time.Millisecond, Max: 300 * time.Millisecond},
		Failed:  func(reason string) json.RawMessage { return json.RawMessage(`{"failed":true}`) },
		Analyze: func(ctx context.Context, id string, progress jobs.Progress) (json.RawMessage, error) {
			progress("read", 0.5)
			switch id {
			case bad:
				return nil, serrors.Errorf(http.StatusUnprocessableEntity, "not a heap dump\nsecond line")
			case panics:
				panic("a bug")
			case busy:
				if busyAttempts.Add(1) <= 2 {
					return nil, serrors.Errorf(http.StatusServiceUnavailable, "busy")
				}
				once.Do(func() { close(retried) })
			}
			return json.RawMessage(`{"id":"` + id + `"}`), nil
		}})
	start(t, b)
	h := b.HeapDumps()
	for _, id := range []string{ok, bad, panics, busy} {
		done, err := h.Reserve(context.Background(), "10.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Enqueue(context.Background(), id, "10.0.0.1"); err != nil {
			t.Fatal(err)
		}
		done()
	}
	if rep := e.waitStatus(t, ok); rep.Status != store.ReportReady || string(rep.Summary) != `{"id":"`+ok+`"}` {
		t.Errorf("the good dump's report: %q %s", rep.Status, rep.Summary)
	}
	if rep := e.waitStatus(t, bad); rep.Status != store.ReportFailed || rep.Error != "422 not a heap dump" {
		t.Errorf("the bad dump's report: %q %q", rep.Status, rep.Error)
	}
	if rep := e.waitStatus(t, panics); rep.Status != store.ReportFailed || !strings.HasPrefix(rep.Error, "500 ") {
		t.Errorf("the panicking analysis's report: %q %q", rep.Status, rep.Error)
	}
	// Between the busy dump's attempts, its state says why it waits.
	var sawRetry bool
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if st, ok := h.State(context.Background(), busy); ok && st.Stage == "retry" && st.Retry == "503 busy" {
			sawRetry = true
		}
		select {
		case <-retried:
		case <-time.After(10 * time.Millisecond):
			continue
		}
		break
	}
	if rep := e.waitStatus(t, busy); rep.Status != store.ReportReady || busyAttempts.Load() != 3 {
		t.Errorf("the busy dump's report: %q after %d attempts, want done after 3", rep.Status, busyAttempts.Load())
	}
	if !sawRetry {
		t.Error("between its attempts the busy dump's state never said it waits to be tried again")
	}
	if _, ok := h.State(context.Background(), ok); ok {
		t.Error("a done analysis still has a state")
	}
}

// TestHeapDumpsBoundedPerUploader reserves room for an uploader's analyses:
// its MaxQueuedPerClient queued ones (and reservations) are the most it may
// have (429 beyond, naming the flag); another uploader is not bounded by them.
func TestHeapDumpsBoundedPerUploader(t *testing.T) {
	e := newEnv(t)
	hold := make(chan struct{})
	b := background.New(background.Config{Store: e.db, Jobs: e.runner(t), MaxQueuedPerClient: 2,
		Analyze: func(ctx context.Context, _ string, _ jobs.Progress) (json.RawMessage, error) {
			select {
			case <-hold:
				return json.RawMessage(`{}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	start(t, b)
	defer close(hold)
	h := b.HeapDumps()
	ctx := context.Background()
	done, err := h.Reserve(ctx, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Enqueue(ctx, e.report(t, "a"), "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	done()
	second, err := h.Reserve(ctx, "10.0.0.1") // held, not inserted yet
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reserve(ctx, "10.0.0.1"); err == nil || !strings.Contains(err.Error(), "-max-queued-per-client") {
		t.Errorf("a third reservation: %v, want a 429 naming -max-queued-per-client", err)
	} else if code, _ := serrors.StatusOf(err); code != http.StatusTooManyRequests {
		t.Errorf("a third reservation: status %d", code)
	}
	if other, err := h.Reserve(ctx, "10.0.0.2"); err != nil {
		t.Errorf("another uploader is refused: %v", err)
	} else {
		other()
	}
	second()
	if again, err := h.Reserve(ctx, "10.0.0.1"); err != nil {
		t.Errorf("once a reservation is given back: %v", err)
	} else {
		again()
	}
}

// TestStartQueuesReportsLeftAnalyzing stores a report analyzing with no job
// (as a server older than the job system leaves one): the next start queues
// it and it is analyzed.
func TestStartQueuesReportsLeftAnalyzing(t *testing.T) {
	e := newEnv(t)
	id := e.report(t, "left")
	b := background.New(background.Config{Store: e.db, Jobs: e.runner(t),
		Analyze: func(context.Context, string, jobs.Progress) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		}})
	start(t, b)
	if rep := e.waitStatus(t, id); rep.Status != store.ReportReady {
		t.Errorf("the report left analyzing is %q after a start", rep.Status)
	}
}

// TestRetentionAndRunSweep starts the retention and the runs' sweep: the
// retention expires an old report at once (and says so), and the sweep
// renews this replica's runs (the heartbeat) every half lease until Stop.
func TestRetentionAndRunSweep(t *testing.T) {
	e := newEnv(t)
	id := e.report(t, "old")
	if err := e.db.SetReportState(context.Background(), id, store.ReportReady, "", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	expired := make(chan int, 1)
	var beats atomic.Int32
	b := background.New(background.Config{Store: e.db, Retain: time.Millisecond,
		Expired:  func(reports, _ int) { expired <- reports },
		RunLease: 200 * time.Millisecond,
		Heartbeat: func(context.Context) error {
			beats.Add(1)
			return nil
		}})
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-expired:
		if n != 1 {
			t.Errorf("retention expired %d reports, want 1", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("retention expired nothing")
	}
	if _, err := e.db.Report(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the expired report is still there: %v", err)
	}
	time.Sleep(350 * time.Millisecond)
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := beats.Load()
	if n < 2 {
		t.Errorf("the runs' heartbeat ran %d times in 350 ms at a 200 ms lease, want at least 2", n)
	}
	time.Sleep(250 * time.Millisecond)
	if beats.Load() != n {
		t.Error("the runs' heartbeat ran after Stop")
	}
}
