package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// TestExplainHelperKilled: a workload whose broker process the kernel killed
// at the CPU time limit it inherits ends naming that limit, from the line the
// workload wrote on its standard error, even split across writes.
func TestExplainHelperKilled(t *testing.T) {
	var w markerWatch
	line := child.HelperKilled + ": the broker (signal: killed) after 1.00 s of CPU time\n"
	w.Write([]byte("leakui work: checkpoint: rebalance 814: read: connection reset by peer\n" + line[:10]))
	w.Write([]byte(line[10:]))
	c := ChildLimits{CPU: time.Second, Memory: 2 << 30, Disk: 10 << 20}
	got := explainChildEnd(nil, w.text(), c)
	if want := "a process the child started was killed, as the kernel does at the CPU time limit of 1s (-run-cpu) it inherits from the child"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var quiet markerWatch
	quiet.Write([]byte("leakui work: checkpoint: read: connection reset by peer\n"))
	if got := explainChildEnd(nil, quiet.text(), c); strings.Contains(got, "CPU") {
		t.Errorf("without the line: %q", got)
	}
}
