package goroutines

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/greptest"
)

// goroutineCrashChild re-executes the test binary as a child that crashes the way mode says
// (see goroutineChild) and returns what it printed on stderr. The child must die
// with exit status 2, as Go programs do on a panic, a fatal error or SIGQUIT.
func goroutineCrashChild(t *testing.T, mode string, env ...string) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), goroutineChildEnv+"="+mode), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if mode == "sigquit" {
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child said %q, %v", line, err)
		}
		if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		checkGoroutineChildExit(t, mode, err, stderr.Bytes())
		return stderr.Bytes()
	}
	err = cmd.Run()
	checkGoroutineChildExit(t, mode, err, stderr.Bytes())
	return stderr.Bytes()
}

func checkGoroutineChildExit(t *testing.T, mode string, err error, stderr []byte) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("%s child: %v, want exit status 2; stderr:\n%s", mode, err, stderr)
	}
}

// TestGoroutineCrashOutputs parses what real crashing Go programs print: a panic
// with GOTRACEBACK=all and with the default (only the panicking goroutine), the
// fatal errors of a deadlock and of unlocking an unlocked mutex, and SIGQUIT (with
// and without GODEBUG=tracebacklabels=1). The crash message, the crashing goroutine
// (first, and the one the child names) and the counts per blocked function are
// checked, and the totals against grep.
func TestGoroutineCrashOutputs(t *testing.T) {
	for _, tc := range []struct {
		name, mode, traceback string
		godebug               string
		format                string
		message               string // prefix
		all                   bool   // every goroutine is printed
	}{
		{"panic all", "panic", "all", "", FormatPanic, "leakui test panic in goroutine ", true},
		{"panic single", "panic", "single", "", FormatPanic, "leakui test panic in goroutine ", false},
		{"deadlock", "deadlock", "single", "", FormatFatal, "all goroutines are asleep - deadlock!", true},
		{"unlock", "unlock", "all", "", FormatFatal, "sync: unlock of unlocked mutex", true},
		{"sigquit", "sigquit", "single", "", "SIGQUIT", "SIGQUIT: quit", true},
		{"sigquit with labels", "sigquit", "single", "tracebacklabels=1", "SIGQUIT", "SIGQUIT: quit", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode == "deadlock" && goroutineRaceEnabled {
				t.Skip("a -race binary never detects the deadlock")
			}
			raw := goroutineCrashChild(t, tc.mode, "GOTRACEBACK="+tc.traceback, "GODEBUG="+tc.godebug)
			path := writeGoroutineTemp(t, raw)
			d := mustParseGoroutines(t, raw)
			groups := Groups(d)
			checkGoroutinesAgainstGrep(t, tc.name, path, d, groups)
			c := d.Crash
			if d.Format != tc.format || c == nil || !strings.HasPrefix(c.Message, tc.message) {
				t.Fatalf("format %q, crash %+v; want %s %q…", d.Format, c, tc.format, tc.message)
			}
			switch tc.mode {
			case "panic":
				// The child names its own id in the message.
				id, err := strconv.ParseInt(strings.TrimPrefix(c.Message, tc.message), 10, 64)
				if err != nil || c.Goroutine != id || !groups[0].Panicking || groups[0].IDs[0] != id ||
					len(goroutineGroupsWith(groups[:1], goroutineTestPkg+"childPanicker")) != 1 {
					t.Errorf("crash %+v (err %v), first group %v ids %v", c, err, groups[0].Stack.Funcs(), groups[0].IDs)
				}
			case "deadlock", "unlock":
				first := greptest.Output(t, "-m1", "-oE", "^goroutine [0-9]+", path)[0]
				if strconv.FormatInt(c.Goroutine, 10) != strings.Fields(first)[1] || !groups[0].Panicking {
					t.Errorf("crashing goroutine %d, first group panicking %v; the first header is %q", c.Goroutine, groups[0].Panicking, first)
				}
			case "sigquit":
				if c.Kind != FormatSignal || c.Goroutine != -1 || groups[0].Panicking {
					t.Errorf("crash %+v, first group panicking %v; a SIGQUIT dump names no crashing goroutine", c, groups[0].Panicking)
				}
			}
			if !tc.all {
				if d.Total() != 1 {
					t.Errorf("%d goroutines, want only the panicking one", d.Total())
				}
				return
			}
			for fn, want := range map[string]struct {
				count int
				state string
			}{"childBlockedReceive": {childReceivers, "chan receive"}, "childBlockedSelect": {childSelectors, "select"}} {
				gs := goroutineGroupsWith(groups, goroutineTestPkg+fn)
				if len(gs) != 1 || gs[0].Count != want.count || gs[0].State != want.state {
					t.Errorf("%s: %d groups, %d goroutines; want one group of %d in %q", fn, len(gs), countGoroutines(gs), want.count, want.state)
					continue
				}
				var wantLabels map[string]string
				if tc.godebug != "" && fn == "childBlockedReceive" {
					wantLabels = map[string]string{childLabelKey: childLabelValue}
				}
				if !maps.Equal(gs[0].Labels, wantLabels) {
					t.Errorf("%s: labels %v, want %v", fn, gs[0].Labels, wantLabels)
				}
			}
		})
	}
}
