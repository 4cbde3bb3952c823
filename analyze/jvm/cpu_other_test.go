//go:build !unix

package jvm

import "testing"

// javaReportCPU reports nothing where the process's CPU time is not available.
func javaReportCPU(*testing.B) func() { return func() {} }
