package logline

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests under goleak, as every test main of the
// project does.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
