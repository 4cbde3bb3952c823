package logs

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests under goleak: a count reads its inputs in
// parallel, and no reader or worker may outlive it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
