package hprof

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests under goleak.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
