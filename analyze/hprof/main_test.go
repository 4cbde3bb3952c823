package hprof

import (
	"path/filepath"
	"testing"

	"github.com/leakui/leakui/internal/javatest"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests under goleak.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// runJava runs testdata/PROGRAM.java (see javatest.Run).
func runJava(t testing.TB, program string, gz bool, jvmArgs []string, args ...string) javatest.Heap {
	t.Helper()
	return javatest.Run(t, filepath.Join("testdata", program+".java"), gz, jvmArgs, args...)
}
