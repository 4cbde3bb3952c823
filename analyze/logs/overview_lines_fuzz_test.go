package logs

import (
	"bytes"
	"context"
	"testing"
)

// FuzzOverviewLines holds the line count of a count with the overview (which
// takes the lines of a block from the overview's pass when no pattern line
// came first) to the same count without it, with and without a pattern, in
// tiny blocks: the lines, the matches and the timed buckets are the same.
func FuzzOverviewLines(f *testing.F) {
	f.Add([]byte("2023-06-21 00:00:00.030 [main] A [INFO] Consumer started\nno time\n2023-06-21 00:00:01.000 B\n"), uint16(40), "Consumer")
	f.Add([]byte("Consumer\nx\n\n\nConsumer"), uint16(16), "Consumer")
	f.Add([]byte("a\nb\nc"), uint16(1), "")
	f.Fuzz(func(t *testing.T, data []byte, block uint16, pattern string) {
		var pats []Pattern
		if pattern != "" {
			pats = []Pattern{Literal(pattern)}
		}
		count := func(overview bool) *Report {
			opts := CountOptions{Patterns: pats, Overview: overview, blockSize: int(block%256) + 16, Workers: 1, maxLine: 4096}
			rep, err := Count(context.Background(), opts, Input{Name: "f", Reader: bytes.NewReader(data)})
			if err != nil {
				t.Skip(err) // a pattern Count refuses is refused alike with the overview
			}
			return rep
		}
		with, without := count(true), count(false)
		if with.Lines != without.Lines {
			t.Fatalf("%d lines with the overview, %d without", with.Lines, without.Lines)
		}
		if with.LongLines != without.LongLines {
			t.Fatalf("%d long lines with the overview, %d without", with.LongLines, without.LongLines)
		}
		for i, pc := range with.Patterns {
			if pc.Count != without.Patterns[i].Count {
				t.Fatalf("%q: %d lines with the overview, %d without", pc.Pattern, pc.Count, without.Patterns[i].Count)
			}
		}
	})
}
