//go:build !unix

package jvm

import "testing"

// reportCPU reports nothing where the process's CPU time is not available.
func reportCPU(*testing.B) func() { return func() {} }
