//go:build !race

package pprof

// raceEnabled reports a -race build (see race_test.go).
const raceEnabled = false
