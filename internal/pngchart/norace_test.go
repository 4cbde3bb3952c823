//go:build !race

package pngchart

const race = false
