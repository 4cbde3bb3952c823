package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
)

// The tests below run replicas as real processes: this test binary started
// again with helperEnv set runs a Runner on the database the environment
// names (helperDBEnv: "sqlite FILE" or "postgres DSN"), prints "ready ID",
// then "started JOB" and "done JOB" for the slow jobs it works, and stops
// when its standard input closes.
const (
	helperEnv     = "LEAKUI_JOBS_HELPER"
	helperDBEnv   = "LEAKUI_JOBS_HELPER_DB"
	helperTickEnv = "LEAKUI_JOBS_HELPER_TICKS" // a URL to GET on every tick
)

// slowArgs is a job of Steps steps of StepMillis each.
type slowArgs struct {
	Steps      int `json:"steps"`
	StepMillis int `json:"step_ms"`
}

func (slowArgs) Kind() string { return "test_slow" }

func slowWork(ctx context.Context, a slowArgs, progress jobs.Progress) error {
	at, _ := jobs.CurrentAttempt(ctx)
	fmt.Printf("started %d\n", at.ID)
	for i := range a.Steps {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(a.StepMillis) * time.Millisecond):
		}
		progress("step", float64(i+1)/float64(a.Steps))
	}
	fmt.Printf("done %d\n", at.ID)
	return nil
}

// tickArgs is a periodic job that tells target its tick.
type tickArgs struct {
	Target string `json:"target"`
}

func (tickArgs) Kind() string { return "test_tick" }

func registerHelperKinds(r *jobs.Runner, process string) {
	jobs.Register(r, jobs.WorkFunc[slowArgs](slowWork), jobs.Kind{})
	jobs.Register(r, jobs.WorkFunc[tickArgs](func(ctx context.Context, a tickArgs, _ jobs.Progress) error {
		at, _ := jobs.CurrentAttempt(ctx)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet,
			a.Target+"?tick="+strconv.FormatInt(at.Tick.UnixMilli(), 10)+"&by="+process, nil)
		if err != nil {
			return jobs.Fail(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}), jobs.Kind{Queue: "ticks"})
}

// helperMain is a replica's main.
func helperMain() int {
	kind, url, _ := strings.Cut(os.Getenv(helperDBEnv), " ")
	ctx := context.Background()
	var b *jobs.Backend
	var err error
	if kind == "sqlite" {
		b, err = jobssqlite.Open(ctx, url)
	} else {
		b, err = jobspostgres.Open(ctx, url)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Close()
	r := jobs.New(b, jobs.Config{Queues: map[string]int{jobs.DefaultQueue: 1, "ticks": 2}, PollInterval: 50 * time.Millisecond,
		RescueAfter: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	registerHelperKinds(r, r.ID())
	if target := os.Getenv(helperTickEnv); target != "" {
		r.AddPeriodic(jobs.Periodic{Every: time.Second, Args: func() jobs.Args { return tickArgs{Target: target} }})
	}
	if err := r.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("ready %s\n", r.ID())
	io.Copy(io.Discard, os.Stdin)
	stop, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := r.Stop(stop); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// replica is a helper process.
type replica struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	id    string
	lines chan string
}

// startReplica starts a replica on db and waits for it to be ready.
func startReplica(t *testing.T, db database, ticks string) *replica {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperDBEnv+"="+db.name+" "+db.url, helperTickEnv+"="+ticks)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &replica{cmd: cmd, stdin: stdin, lines: make(chan string, 256)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { p.stop(t) })
	line := p.next(t, 60*time.Second)
	id, ok := strings.CutPrefix(line, "ready ")
	if !ok {
		t.Fatalf("the replica said %q, want ready", line)
	}
	p.id = id
	return p
}

// next returns the replica's next line.
func (p *replica) next(t *testing.T, timeout time.Duration) string {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatalf("replica %s exited", p.id)
		}
		return line
	case <-time.After(timeout):
		t.Fatalf("replica %s said nothing for %s", p.id, timeout)
	}
	return ""
}

// stop closes the replica's input and waits for it to stop (it is killed
// after 30 s).
func (p *replica) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("replica %s: %v", p.id, err)
		}
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
		t.Errorf("replica %s did not stop within 30 s of its input closing", p.id)
	}
}

// kill ends the replica with SIGKILL.
func (p *replica) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// Two replicas share a database; one is killed (SIGKILL) in the middle of a
// job: the other finishes it once the leader has rescued it.
func TestKilledReplicasJobFinishesOnAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a replica and waits for the rescue (up to 45 s)")
	}
	eachDatabase(t, func(t *testing.T, db database) {
		replicas := []*replica{startReplica(t, db, ""), startReplica(t, db, "")}
		inserter := jobs.New(db.open(t), testConfig(nil))
		registerHelperKinds(inserter, "")
		start(t, inserter)
		ins, err := inserter.Insert(t.Context(), slowArgs{Steps: 40, StepMillis: 100}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Whichever replica starts it is killed.
		want := fmt.Sprintf("started %d", ins.ID)
		var victim *replica
		deadline := time.After(30 * time.Second)
		for victim == nil {
			select {
			case line := <-replicas[0].lines:
				if line == want {
					victim = replicas[0]
				}
			case line := <-replicas[1].lines:
				if line == want {
					victim = replicas[1]
				}
			case <-deadline:
				t.Fatal("no replica started the job")
			}
		}
		time.Sleep(500 * time.Millisecond) // mid-job
		victim.kill()
		killed := time.Now()
		survivor := replicas[0]
		if survivor == victim {
			survivor = replicas[1]
		}
		info := waitFor(t, inserter, ins.ID, 90*time.Second, jobs.Done, jobs.Failed, jobs.Cancelled)
		t.Logf("the job was done %s after its replica was killed", time.Since(killed).Round(100*time.Millisecond))
		if info.State != jobs.Done || info.Process != survivor.id || info.Attempt != 2 || !strings.Contains(info.Error, "rescued") {
			t.Errorf("the job ended %+v; want done by %s on its second attempt, the first rescued", info, survivor.id)
		}
		var said []string
		for len(said) < 2 {
			said = append(said, survivor.next(t, 10*time.Second))
		}
		if !slices.Equal(said, []string{want, fmt.Sprintf("done %d", ins.ID)}) {
			t.Errorf("the survivor said %q", said)
		}
	})
}

// A job that runs longer than RescueAfter in a live replica is not taken for
// a dead one's: its heartbeat keeps it from the leader's rescue, which runs
// every 30 s, so the job outlasts one.
func TestLiveLongJobIsNotRescued(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job through a rescue of the leader's (35 s)")
	}
	eachDatabase(t, func(t *testing.T, db database) {
		t.Parallel()
		// The leader works no queue of the job's; the replica does.
		leader := jobs.New(db.open(t), testConfig(map[string]int{"elsewhere": 1}))
		registerHelperKinds(leader, "leader")
		start(t, leader)
		worker := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		var mu sync.Mutex
		runs := 0
		jobs.Register(worker, jobs.WorkFunc[slowArgs](func(ctx context.Context, a slowArgs, p jobs.Progress) error {
			mu.Lock()
			runs++
			mu.Unlock()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(a.Steps*a.StepMillis) * time.Millisecond):
				return nil
			}
		}), jobs.Kind{})
		jobs.Register(worker, jobs.WorkFunc[tickArgs](func(context.Context, tickArgs, jobs.Progress) error { return nil }), jobs.Kind{Queue: "ticks"})
		start(t, worker)
		ins, err := worker.Insert(t.Context(), slowArgs{Steps: 35, StepMillis: 1000}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		info := waitFor(t, worker, ins.ID, 90*time.Second, jobs.Done, jobs.Failed, jobs.Cancelled)
		mu.Lock()
		defer mu.Unlock()
		if info.State != jobs.Done || info.Attempt != 1 || runs != 1 || info.Error != "" {
			t.Errorf("the long job ended %+v after %d runs; want done at the first attempt, never rescued", info, runs)
		}
	})
}

// Two replicas on one database each run a periodic job's every tick once
// between them, counted at the target; once the leader is killed, the other
// goes on without running a tick twice.
func TestPeriodicJobOncePerTick(t *testing.T) {
	if testing.Short() {
		t.Skip("watches ticks for 30 s")
	}
	eachDatabase(t, func(t *testing.T, db database) {
		var mu sync.Mutex
		ticks := map[int64][]string{} // the processes that ran each tick
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tick, err := strconv.ParseInt(r.URL.Query().Get("tick"), 10, 64)
			if err != nil {
				http.Error(w, "no tick", http.StatusBadRequest)
				return
			}
			mu.Lock()
			ticks[tick] = append(ticks[tick], r.URL.Query().Get("by"))
			mu.Unlock()
		}))
		defer target.Close()
		a := startReplica(t, db, target.URL)
		b := startReplica(t, db, target.URL)
		// ran counts the ticks run since from.
		ran := func(from time.Time) int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for tick := range ticks {
				if tick >= from.UnixMilli() {
					n++
				}
			}
			return n
		}
		waitTicks := func(n int, from time.Time) {
			deadline := time.Now().Add(60 * time.Second)
			for ran(from) < n {
				if time.Now().After(deadline) {
					t.Fatalf("%d ticks ran in 60 s since %s, want %d", ran(from), from.Format("15:04:05"), n)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		waitTicks(8, time.Time{})
		// Kill between two ticks, no tick's job running: a job killed midway
		// runs again (tested above), and might have reached the target.
		waitTicks(9, time.Time{})
		time.Sleep(400 * time.Millisecond)
		// Kill one replica (the first started, the leader as a rule): after
		// its leadership expires (River's leader TTL is 15 s) the other
		// elects itself and goes on.
		a.kill()
		killedAt := time.Now()
		waitTicks(4, killedAt.Add(time.Second))
		b.stop(t)

		mu.Lock()
		defer mu.Unlock()
		var all []int64
		for tick, by := range ticks {
			all = append(all, tick)
			if len(by) != 1 {
				t.Errorf("tick %s ran %d times (by %v)", time.UnixMilli(tick).Format("15:04:05.000"), len(by), by)
			}
			if tick%1000 != 0 {
				t.Errorf("tick %d is not on a second", tick)
			}
		}
		slices.Sort(all)
		for _, tick := range all {
			t.Logf("tick %s by %v", time.UnixMilli(tick).Format("15:04:05.000"), ticks[tick])
		}
		t.Logf("killed %s at %s", a.id, killedAt.Format("15:04:05.000"))
		// No tick was missed but at the change of leader.
		var gaps []string
		for i := 1; i < len(all); i++ {
			if d := all[i] - all[i-1]; d != 1000 {
				gaps = append(gaps, fmt.Sprintf("%s after %s", time.UnixMilli(all[i]).Format("15:04:05"), time.Duration(d)*time.Millisecond))
			}
		}
		t.Logf("%d ticks from %s to %s; gaps: %v", len(all), time.UnixMilli(all[0]).Format("15:04:05"), time.UnixMilli(all[len(all)-1]).Format("15:04:05"), gaps)
		if len(gaps) > 1 {
			t.Errorf("ticks were missed more than once (at the change of leader): %v", gaps)
		}
	})
}
