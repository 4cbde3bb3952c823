//go:build race

package main

// raceEnabled reports a -race build, in which the large inputs of the memory
// measurements are made smaller: the race detector multiplies time and memory.
const raceEnabled = true
