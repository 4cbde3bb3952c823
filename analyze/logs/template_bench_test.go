package logs

import (
	"context"
	"os"
	"testing"
)

// BenchmarkOverview measures the overview's pass (levels, templates, lines
// over time) over the 64 MiB benchmark log beside a count of the four
// patterns bench/count-vs-grep.sh counts; the side-by-side script
// bench/templates-vs-count.sh compares the two on 1 GiB. MB/s is input bytes
// per second.
func BenchmarkOverview(b *testing.B) {
	path := writeBenchLog(b, 64)
	fi, _ := os.Stat(path)
	for _, bc := range []struct {
		name string
		opts CountOptions
	}{
		{"4 literals", CountOptions{Patterns: benchPatterns}},
		{"overview", CountOptions{Overview: true}},
		{"overview, no buckets", CountOptions{Overview: true, Bucket: BucketNone}},
		{"overview and 4 literals", CountOptions{Overview: true, Patterns: benchPatterns}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = Count(context.Background(), bc.opts, Input{Name: "bench.log", Reader: f})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMask measures the masker alone on one typical line.
func BenchmarkMask(b *testing.B) {
	line := []byte("2023-06-21 00:00:00.066 [main] o.a.k.c.c.i.ConsumerCoordinator [INFO] [Consumer clientId=consumer-seas-1, groupId=seas] Setting offset for partition events-3 to the committed offset FetchPosition{offset=81237123}")
	var m logMasker
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m.mask(line)
	}
}
