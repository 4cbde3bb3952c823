// Package goroutines parses Go goroutine dumps (debug=1, debug=2, panics, fatal errors, SIGQUIT, goroutine profiles), groups goroutines by stack and compares dumps.
package goroutines
