package analyze

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

// waitGoroutinesBlocked waits until the traceback of all goroutines shows at least the given
// number of headers ending in each status, so that a dump taken next finds every
// goroutine blocked rather than still starting.
func waitGoroutinesBlocked(want map[string]int) {
	buf := make([]byte, 1<<20)
	for {
		all := string(buf[:runtime.Stack(buf, true)])
		ok := true
		for status, n := range want {
			if strings.Count(all, status) < n {
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
	waitGoroutinesBlocked(map[string]int{"[chan receive": childReceivers, "[select": childSelectors})
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
