package logs

import (
	"testing"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/lab"
)

// TestLogRunPresets checks that every workload that writes a log is counted
// with a preset that exists (a renamed preset would silently count nothing).
func TestLogRunPresets(t *testing.T) {
	for _, w := range []string{lab.WorkloadCheckpoint, lab.WorkloadRecovery} {
		name := logRunPreset(w)
		if _, ok := logs.LookupPreset(name); !ok {
			t.Errorf("workload %s: preset %q does not exist", w, name)
		}
	}
	if logRunPreset(lab.WorkloadCapture) != "" {
		t.Error("captures have no log preset")
	}
}
