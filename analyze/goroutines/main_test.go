package goroutines

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// goroutineChildEnv names the crash a re-executed test binary performs instead of
// running tests (see goroutineChild).
const goroutineChildEnv = "LEAKUI_GOROUTINE_CHILD"

// TestMain runs the package's tests under goleak, or, in a child process started by
// a crash test, crashes the way the test asked.
func TestMain(m *testing.M) {
	if mode := os.Getenv(goroutineChildEnv); mode != "" {
		goroutineChild(mode)
		return
	}
	goleak.VerifyTestMain(m)
}

// The goroutines a crashing child leaves behind, one function per kind so that the
// parent can find each group by name.

//go:noinline
func childBlockedReceive(ch chan int) { <-ch }

//go:noinline
func childBlockedSelect(a, b chan int) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func childPanicker(done chan int) {
	panic(fmt.Sprintf("leakui test panic in goroutine %d", currentGoroutineID()))
}

// currentGoroutineID reads the calling goroutine's id from its own traceback, with
// plain string handling (not the parser under test).
func currentGoroutineID() int64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	var id int64
	fmt.Sscanf(strings.TrimPrefix(string(buf), "goroutine "), "%d", &id)
	return id
}

// blockedGoroutines names goroutines in a traceback: those whose header line holds
// Header (a status such as "[select]:") and whose text holds Text (a function or a
// marker); N is how many a test waits for.
type blockedGoroutines struct {
	Header, Text string
	N            int
}

// waitGoroutinesBlocked waits until the traceback of all goroutines shows at least N
// goroutines of each kind, so that a dump taken next finds every goroutine of the
// test blocked rather than still starting. Matching the status and a function of
// the test together keeps goroutines of the rest of the process from being counted.
func waitGoroutinesBlocked(want ...blockedGoroutines) {
	for {
		got := make([]int, len(want))
		for _, g := range strings.Split(string(captureGoroutineStacks()), "\n\ngoroutine ") {
			header, _, _ := strings.Cut(g, "\n")
			for i, w := range want {
				if strings.Contains(header, w.Header) && strings.Contains(g, w.Text) {
					got[i]++
				}
			}
		}
		ok := true
		for i, w := range want {
			if got[i] < w.N {
				ok = false
			}
		}
		if ok {
			return
		}
		runtime.Gosched()
	}
}

// Counts of goroutines each crashing child starts, and the pprof label its
// receivers carry (shown in tracebacks with GODEBUG=tracebacklabels=1).
const (
	childReceivers  = 4
	childSelectors  = 3
	childLabelKey   = "leakui"
	childLabelValue = "receiver"
)

// goroutineChild starts childReceivers goroutines blocked on a channel (labeled) and
// childSelectors blocked in a select, then dies: "panic" panics in another
// goroutine, "deadlock" blocks main until the runtime declares a deadlock,
// "unlock" unlocks an unlocked mutex (a fatal error),
// "sigquit" prints "ready" and sleeps until the parent's SIGQUIT.
func goroutineChild(mode string) {
	ch, a, b := make(chan int), make(chan int), make(chan int)
	for range childReceivers {
		go pprof.Do(context.Background(), pprof.Labels(childLabelKey, childLabelValue), func(context.Context) {
			childBlockedReceive(ch)
		})
	}
	for range childSelectors {
		go childBlockedSelect(a, b)
	}
	waitGoroutinesBlocked(
		blockedGoroutines{"[chan receive", goroutineTestPkg + "childBlockedReceive(", childReceivers},
		blockedGoroutines{"[select", goroutineTestPkg + "childBlockedSelect(", childSelectors},
	)
	switch mode {
	case "panic":
		go childPanicker(ch)
	case "unlock":
		var mu sync.Mutex
		mu.Unlock() //nolint:staticcheck // the runtime's fatal error is the point
	case "sigquit":
		// A sleeping main goroutine keeps the runtime from declaring a deadlock
		// before the signal arrives; if none comes, the child ends on its own.
		fmt.Println("ready")
		time.Sleep(30 * time.Second)
		os.Exit(3)
	}
	<-make(chan int)
}
