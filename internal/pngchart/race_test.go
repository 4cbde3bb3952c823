//go:build race

package pngchart

// race is true in a build with the race detector, which makes the largest
// inputs too slow to draw in a test.
const race = true
