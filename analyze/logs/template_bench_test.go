package logs

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkOverview measures the overview's pass (levels, templates, lines
// over time) over the 64 MiB benchmark log beside a count of the four
// patterns bench/count-vs-grep.sh counts; the side-by-side script
// bench/templates-vs-count.sh compares the two on 1 GiB. MB/s is input bytes
// per second; cpu-ns/op is the process's user and system time per op, which
// a machine shared with other work changes less than the wall time.
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
			defer reportCPU(b)()
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
	var m lineMasker
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m.mask(line)
	}
}

// BenchmarkFastPath measures the masker's fast path (template_fast.go) on
// lines of the benchmark log's layout: six templates in turn, each line with
// its own time and thread, after the trie has seen them once.
func BenchmarkFastPath(b *testing.B) {
	lines := benchFastPathLines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	var c fastCache
	var m lineMasker
	for _, l := range lines {
		if leaf, _ := c.match(l); leaf == nil {
			if _, ok := m.mask(l); ok {
				c.insert(m.key, nil)
			}
		}
	}
	b.SetBytes(int64(size / len(lines)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c.match(lines[i%len(lines)])
	}
}

// benchFastPathLines returns 600 lines of the benchmark log's layout.
func benchFastPathLines() [][]byte {
	noise := []string{
		"o.a.s.c.SamzaContainer [INFO] Entering run loop.",
		"o.a.s.s.k.KafkaSystemConsumer [DEBUG] kafka-system-consumer-checkpoint: Fetched 0 messages for ssp SystemStreamPartition [kafka, __samza_checkpoint_ver_1_for_seas-cloud-consumer_1, 0]",
		"o.a.k.c.c.i.ConsumerCoordinator [INFO] [Consumer clientId=consumer-seas-1, groupId=seas] Setting offset for partition events-3 to the committed offset FetchPosition{offset=81237123}",
		"o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms, blocked 3 ms",
		"o.a.k.c.NetworkClient [WARN] [Consumer clientId=consumer-seas-2] Connection to node 3 (broker-3/10.0.0.3:9092) could not be established. Broker may not be available.",
		"o.a.s.s.StorageManager [INFO] Restoring store kv-store from changelog, 12 partitions",
	}
	var lines [][]byte
	for i := 0; i < 600; i++ {
		l := fmt.Sprintf("2023-06-21 00:%02d:%02d.%03d [pool-%d-thread-%d] %s", i/60%60, i%60, i*37%1000, 1+i%4, 1+i*7%8, noise[i*5%len(noise)])
		lines = append(lines, []byte(l))
	}
	return lines
}

// BenchmarkSkeletonCache measures the skeleton cache (template_skeleton.go)
// on the lines of BenchmarkFastPath, after it has kept each line once: the
// lookup of a line whose skeleton it holds.
func BenchmarkSkeletonCache(b *testing.B) {
	lines := benchFastPathLines()
	var c skelCache
	size := 0
	for _, l := range lines {
		if e, hash := c.lookup(l); e == nil {
			c.keep(l, hash, nil, LevelNone)
		}
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if e, _ := c.lookup(lines[i%len(lines)]); e == nil {
			b.Fatalf("line %q: no entry", lines[i%len(lines)])
		}
	}
}
