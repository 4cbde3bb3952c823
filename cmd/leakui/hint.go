package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/leakui/leakui/analyze"
)

// notAProfileHint says, for a file the profile commands could not read, what it
// looks like and which command reads that, as jvmRead does for the JVM commands:
// "; try leakui goroutines" after an error that names the kind it detected, else
// " (it looks like a Go goroutine dump; try leakui goroutines)". It is "" when the
// file looks like a profile or cannot be read again.
func notAProfileHint(path string, loadErr error) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	rc, _, err := analyze.Decompress(f, 0)
	if err != nil {
		return ""
	}
	defer rc.Close()
	head, _ := bufio.NewReaderSize(rc, analyze.SniffSize).Peek(analyze.SniffSize)
	detected := analyze.DetectKind(head)
	if detected.Kind == analyze.KindProfile || detected.Kind == "" {
		return ""
	}
	if errors.Is(loadErr, analyze.ErrUnsupportedKind) {
		return jvmCommandFor(detected.Kind)
	}
	return fmt.Sprintf(" (it looks like a %s%s)", detected, jvmCommandFor(detected.Kind))
}
