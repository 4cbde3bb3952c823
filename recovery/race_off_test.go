//go:build !race

package recovery

// raceEnabled is true under the race detector, whose shadow memory for the Go
// heap grows the RSS outside the heap in use.
const raceEnabled = false
