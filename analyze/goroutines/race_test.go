//go:build race

package goroutines

// goroutineRaceEnabled reports a -race build, in which the runtime cannot detect a
// deadlock (the race detector's own threads keep it from seeing one).
const goroutineRaceEnabled = true
