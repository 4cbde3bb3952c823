package goroutines

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leakui/leakui/internal/greptest"
)

// The functions below block real goroutines in known ways, one function per way,
// so that a test can find each group by name in a dump the runtime writes.

const goroutineTestPkg = "github.com/leakui/leakui/analyze/goroutines."

//go:noinline
func liveChanReceive(ch chan struct{}) { <-ch }

//go:noinline
func liveSelect(a, b chan struct{}) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func liveMutex(mu *sync.Mutex) {
	mu.Lock()
	//lint:ignore SA2001 the lock is the point: the goroutine blocks here
	mu.Unlock()
}

//go:noinline
func liveCondWait(c *sync.Cond, stop *bool) {
	c.L.Lock()
	for !*stop {
		c.Wait()
	}
	c.L.Unlock()
}

//go:noinline
func liveMaybeLocked(ch chan struct{}, lock bool) {
	if lock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	<-ch
}

//go:noinline
func liveNewLeak(ch chan struct{}) { <-ch }

// goroutineLivePopulation is a set of blocked goroutines and the means to release them.
type goroutineLivePopulation struct {
	ch, a, b chan struct{}
	mu       sync.Mutex
	cond     *sync.Cond
	stop     bool
	wg       sync.WaitGroup
}

// The known population: goroutines per function.
const (
	liveReceivers = 7
	liveSelectors = 5
	liveMutexes   = 3
	liveCondWaits = 4
	liveLockedN   = 2 // of liveMaybeLockedN, locked to their thread
	liveMaybeN    = 5
)

// startGoroutineLivePopulation starts the known population and waits until all of it is
// blocked; Stop releases it and waits for every goroutine to end.
func startGoroutineLivePopulation(t *testing.T) *goroutineLivePopulation {
	t.Helper()
	l := &goroutineLivePopulation{ch: make(chan struct{}), a: make(chan struct{}), b: make(chan struct{})}
	l.cond = sync.NewCond(&sync.Mutex{})
	l.mu.Lock()
	l.spawn(liveReceivers, l.receive)
	for range liveSelectors {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); liveSelect(l.a, l.b) }()
	}
	l.spawn(liveMutexes, func() { liveMutex(&l.mu) })
	l.spawn(liveCondWaits, func() { liveCondWait(l.cond, &l.stop) })
	for i := range liveMaybeN {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); liveMaybeLocked(l.ch, i < liveLockedN) }()
	}
	waitGoroutinesBlocked(
		blockedGoroutines{"[chan receive]:", goroutineTestPkg + "liveChanReceive(", liveReceivers},
		blockedGoroutines{"[chan receive]:", goroutineTestPkg + "liveMaybeLocked(", liveMaybeN - liveLockedN},
		blockedGoroutines{"[chan receive, locked to thread]:", goroutineTestPkg + "liveMaybeLocked(", liveLockedN},
		blockedGoroutines{"[select]:", goroutineTestPkg + "liveSelect(", liveSelectors},
		blockedGoroutines{"[sync.Mutex.Lock]:", goroutineTestPkg + "liveMutex(", liveMutexes},
		blockedGoroutines{"[sync.Cond.Wait]:", goroutineTestPkg + "liveCondWait(", liveCondWaits},
	)
	t.Cleanup(l.Stop)
	return l
}

// spawn starts n goroutines from one go statement, so they share their creator.
func (l *goroutineLivePopulation) spawn(n int, f func()) {
	for range n {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); f() }()
	}
}

// receive and newLeak are the bodies of goroutines started more than once, so that
// every start gives the same stack.
func (l *goroutineLivePopulation) receive() { liveChanReceive(l.ch) }
func (l *goroutineLivePopulation) newLeak() { liveNewLeak(l.ch) }

// Stop releases every goroutine and waits for them.
func (l *goroutineLivePopulation) Stop() {
	if l.ch == nil {
		return
	}
	close(l.ch)
	close(l.a)
	l.mu.Unlock()
	l.cond.L.Lock()
	l.stop = true
	l.cond.Broadcast()
	l.cond.L.Unlock()
	l.wg.Wait()
	l.ch = nil
}

// captureGoroutineStacks returns runtime.Stack(buf, true), growing buf until it fits.
func captureGoroutineStacks() []byte {
	for size := 1 << 16; ; size *= 2 {
		buf := make([]byte, size)
		if n := runtime.Stack(buf, true); n < size {
			return buf[:n]
		}
	}
}

func captureGoroutineProfile(t *testing.T, debug int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, debug); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// goroutineGroupsWith returns the groups whose stack calls the function.
func goroutineGroupsWith(groups []Group, fn string) []Group {
	var out []Group
	for _, g := range groups {
		for _, f := range g.Stack.Frames {
			if f.Func == fn {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func countGoroutines(groups []Group) int {
	n := 0
	for _, g := range groups {
		n += g.Count
	}
	return n
}

// TestGroupGoroutinesLive starts known numbers of goroutines blocked in distinct
// functions, has the runtime dump them in every format, and checks that each
// function's group holds exactly the goroutines started there, with the state the
// runtime gives that kind of block and with locked goroutines apart.
func TestGroupGoroutinesLive(t *testing.T) {
	startGoroutineLivePopulation(t)
	testID := currentGoroutineID()
	dumps := map[string][]byte{
		"runtime.Stack": captureGoroutineStacks(),
		"debug=2":       captureGoroutineProfile(t, 2),
		"debug=1":       captureGoroutineProfile(t, 1),
		"proto":         captureGoroutineProfile(t, 0),
	}
	type want struct {
		fn     string
		count  int
		state  string
		groups int // in per-goroutine formats: the locked ones are a group apart
	}
	wants := []want{
		{"liveChanReceive", liveReceivers, "chan receive", 1},
		{"liveSelect", liveSelectors, "select", 1},
		{"liveMutex", liveMutexes, "sync.Mutex.Lock", 1},
		{"liveCondWait", liveCondWaits, "sync.Cond.Wait", 1},
		{"liveMaybeLocked", liveMaybeN, "chan receive", 2},
	}
	for name, raw := range dumps {
		d, err := Parse(bytes.NewReader(raw), 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		groups := Groups(d)
		perGoroutine := name == "runtime.Stack" || name == "debug=2"
		if d.PerGoroutine() != perGoroutine || d.Truncated {
			t.Errorf("%s: format %q, truncated %v", name, d.Format, d.Truncated)
		}
		if perGoroutine {
			checkGoroutinesAgainstGrep(t, name, writeGoroutineTemp(t, raw), d, groups)
		}
		if got := countGoroutines(groups); got != d.Total() {
			t.Errorf("%s: groups hold %d goroutines, the dump %d", name, got, d.Total())
		}
		for _, w := range wants {
			gs := goroutineGroupsWith(groups, goroutineTestPkg+w.fn)
			wantGroups := 1
			if perGoroutine {
				wantGroups = w.groups
			}
			if len(gs) != wantGroups || countGoroutines(gs) != w.count {
				t.Errorf("%s: %s: %d groups of %d goroutines, want %d of %d", name, w.fn, len(gs), countGoroutines(gs), wantGroups, w.count)
				continue
			}
			if !perGoroutine {
				continue
			}
			locked := 0
			for _, g := range gs {
				if g.State != w.state || len(g.IDs) != g.Count || g.Stack.CreatedBy == nil ||
					!slices.Equal(g.CreatorIDs, []int64{testID}) {
					t.Errorf("%s: %s: state %q, %d ids for %d, created by %+v in %v; want %q, created in goroutine %d",
						name, w.fn, g.State, len(g.IDs), g.Count, g.Stack.CreatedBy, g.CreatorIDs, w.state, testID)
				}
				if g.Locked {
					locked += g.Count
				}
			}
			if w.fn == "liveMaybeLocked" && locked != liveLockedN {
				t.Errorf("%s: %d goroutines locked to their thread, want %d", name, locked, liveLockedN)
			}
		}
	}
}

func writeGoroutineTemp(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump.txt")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareGoroutinesLive takes a dump, starts more goroutines in a known
// function and a new one, takes another, and checks that the comparison puts the
// new group and the grown group first, with their exact growth.
func TestCompareGoroutinesLive(t *testing.T) {
	l := startGoroutineLivePopulation(t)
	base := mustParseGoroutines(t, captureGoroutineStacks())
	const moreReceivers, newLeaks = 6, 9
	l.spawn(moreReceivers, l.receive)
	l.spawn(newLeaks, l.newLeak)
	waitGoroutinesBlocked(
		blockedGoroutines{"[chan receive]:", goroutineTestPkg + "liveChanReceive(", liveReceivers + moreReceivers},
		blockedGoroutines{"[chan receive]:", goroutineTestPkg + "liveNewLeak(", newLeaks},
	)
	for _, capture := range []struct {
		name string
		raw  []byte
	}{{"runtime.Stack", captureGoroutineStacks()}, {"debug=1", captureGoroutineProfile(t, 1)}, {"proto", captureGoroutineProfile(t, 0)}} {
		target := mustParseGoroutines(t, capture.raw)
		groups := compareDumps(base, target)
		if len(groups) < 2 {
			t.Fatalf("%s: %d groups", capture.name, len(groups))
		}
		first, second := groups[0], groups[1]
		if len(goroutineGroupsWith([]Group{first}, goroutineTestPkg+"liveNewLeak")) != 1 || !first.Change.New || first.Count != newLeaks || first.Change.Delta != newLeaks {
			t.Errorf("%s: first group %v %+v, want the new liveNewLeak group of %d", capture.name, first.Stack.Funcs(), first.Change, newLeaks)
		}
		if len(goroutineGroupsWith([]Group{second}, goroutineTestPkg+"liveChanReceive")) != 1 || second.Change.New ||
			second.Change.Base != liveReceivers || second.Count != liveReceivers+moreReceivers || second.Change.Delta != moreReceivers {
			t.Errorf("%s: second group %v count %d %+v, want liveChanReceive grown from %d by %d",
				capture.name, second.Stack.Funcs(), second.Count, second.Change, liveReceivers, moreReceivers)
		}
		for _, fn := range []string{"liveSelect", "liveMutex", "liveCondWait", "liveMaybeLocked"} {
			for _, g := range goroutineGroupsWith(groups, goroutineTestPkg+fn) {
				if g.Change.Delta != 0 {
					t.Errorf("%s: %s changed by %d, want unchanged", capture.name, fn, g.Change.Delta)
				}
			}
		}
		total := 0
		for _, g := range groups {
			total += g.Change.Delta
		}
		if want := target.Total() - base.Total(); total != want {
			t.Errorf("%s: deltas add up to %d, totals differ by %d", capture.name, total, want)
		}
	}
}

func mustParseGoroutines(t *testing.T, raw []byte) *Dump {
	t.Helper()
	d, err := Parse(bytes.NewReader(raw), 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkGoroutinesAgainstGrep checks a per-goroutine text dump against GNU grep run on the
// file: the number of goroutine headers is the total, and every goroutine id grep
// finds is in exactly one group, whose state is the one in that header.
func checkGoroutinesAgainstGrep(t *testing.T, name, path string, d *Dump, groups []Group) {
	t.Helper()
	headers := greptest.Output(t, "-E", `^goroutine [0-9]+ (gp=0x[0-9a-f]+ m=[^ ]+ (mp=[^ ]+ )?)?\[.*\]:$`, path)
	if d.Total() != len(headers) {
		t.Errorf("%s: %d goroutines, grep counts %d headers", name, d.Total(), len(headers))
	}
	grepState := map[int64]string{}
	for _, h := range headers {
		id, err := strconv.ParseInt(strings.Fields(h)[1], 10, 64)
		if err != nil {
			t.Fatalf("%s: header %q: %v", name, h, err)
		}
		status := h[strings.IndexByte(h, '[')+1 : len(h)-2]
		status, _, _ = strings.Cut(status, " labels:{") // GODEBUG=tracebacklabels=1
		state, _, _ := strings.Cut(status, ", ")
		grepState[id] = state
	}
	seen := map[int64]bool{}
	for _, g := range groups {
		for _, id := range g.IDs {
			if seen[id] {
				t.Errorf("%s: goroutine %d in two groups", name, id)
			}
			seen[id] = true
			if st, ok := grepState[id]; !ok || st != g.State {
				t.Errorf("%s: goroutine %d in a group of state %q; grep: %q (found %v)", name, id, g.State, st, ok)
			}
		}
	}
	if len(seen) != len(grepState) {
		t.Errorf("%s: groups hold %d distinct ids, grep finds %d", name, len(seen), len(grepState))
	}
}
