// Package goroutines parses Go goroutine dumps (debug=1, debug=2, panics, fatal errors, SIGQUIT, goroutine profiles), groups goroutines by stack and compares dumps.
//
// It owns the parsing (Parse), the groups and comparisons (Groups, NewReport),
// and the report's verdict and headline, with the largest group by count and the
// panicking one apart (headline.go).
package goroutines
