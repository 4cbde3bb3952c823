package checkpoint

import (
	"bytes"
	"runtime"
)

// Frames that identify the goroutines of a started consumer in a stack dump or a
// goroutine profile. Each running consumer owns exactly one goroutine of each.
const (
	// PollLoopFrame is the poll loop of a SystemConsumer (the "poll thread").
	PollLoopFrame = "github.com/leakui/leakui/checkpoint.(*SystemConsumer).pollLoop"
	// ReaderFrame is the fetch loop kafka-go's Reader runs for its partition.
	ReaderFrame = "github.com/segmentio/kafka-go.(*reader).run"
)

// CountGoroutines returns how many goroutines of this process have a frame whose
// function name is frame (a full name such as PollLoopFrame). It takes a stack dump
// of every goroutine, so call it at the end of a run, not per cycle.
func CountGoroutines(frame string) int { return countFrames(frame)[0] }

// countFrames counts, for each frame, the goroutines holding it, from one dump.
func countFrames(frames ...string) []int {
	want := make([][]byte, len(frames))
	for i, f := range frames {
		want[i] = []byte("\n" + f + "(")
	}
	counts := make([]int, len(frames))
	for _, g := range bytes.Split(allStacks(), []byte("\n\ngoroutine ")) {
		for i, w := range want {
			if bytes.Contains(g, w) {
				counts[i]++
			}
		}
	}
	return counts
}

// allStacks returns runtime.Stack of every goroutine.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
