//go:build !unix

package logs

import "testing"

// reportCPU reports nothing where the process's CPU time is not read.
func reportCPU(*testing.B) func() { return func() {} }
