// Package series decides whether values taken over time leak: per-name trends, their statistics and a verdict with suspects, fed by profiles and JVM histograms.
package series
