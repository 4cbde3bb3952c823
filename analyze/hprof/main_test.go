package hprof

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leakui/leakui/internal/javatest"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests under goleak. With LEAKUI_HPROF_SPILL=1
// every dump keeps its arrays in temporary files, as dumps of SpillFrom bytes
// and more do (.ci/run runs the package both ways). With LEAKUI_HPROF_CHUNKS=1
// the references and the names of every dump are read in parallel chunks of a
// few hundred objects, as those of dumps of a million objects and more are,
// the dominator tree's rows sorted in two halves, and the referrers read in
// partitions of 1,024 depth-first numbers.
func TestMain(m *testing.M) {
	spillAlways = os.Getenv("LEAKUI_HPROF_SPILL") == "1"
	if os.Getenv("LEAKUI_HPROF_CHUNKS") == "1" {
		chunkObjects, chunkBytes = 373, 16<<10
		halfFrom, partitionSpan = 2, 1<<10
	}
	goleak.VerifyTestMain(m)
}

// runJava runs testdata/PROGRAM.java (see javatest.Run).
func runJava(t testing.TB, program string, gz bool, jvmArgs []string, args ...string) javatest.Heap {
	t.Helper()
	return javatest.Run(t, filepath.Join("testdata", program+".java"), gz, jvmArgs, args...)
}

// runAllJava runs testdata/PROGRAM.java and dumps it with -all (see
// javatest.RunAll): the dump keeps the unreachable objects.
func runAllJava(t testing.TB, program string, gz bool, jvmArgs []string, args ...string) javatest.Heap {
	t.Helper()
	return javatest.RunAll(t, filepath.Join("testdata", program+".java"), gz, jvmArgs, args...)
}
