package logs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/logline"
)

// writeBenchLog writes about mb MiB of a Samza-style container log with the
// SAMZA-2785 start/stop pattern among noise (the shape of
// bench/genlog).
func writeBenchLog(tb testing.TB, mb int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "bench.log")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewSource(7))
	t := time.Date(2023, 6, 21, 0, 0, 0, 0, time.UTC)
	noise := []string{
		"o.a.s.c.SamzaContainer [INFO] Entering run loop.",
		"o.a.s.s.k.KafkaSystemConsumer [DEBUG] kafka-system-consumer-checkpoint: Fetched 0 messages for ssp SystemStreamPartition [kafka, __samza_checkpoint_ver_1_for_seas-cloud-consumer_1, 0]",
		"o.a.k.c.c.i.ConsumerCoordinator [INFO] [Consumer clientId=consumer-seas-1, groupId=seas] Setting offset for partition events-3 to the committed offset FetchPosition{offset=81237123}",
		"o.a.s.c.RunLoop [DEBUG] Processed 1000 envelopes in 12 ms, blocked 3 ms",
	}
	var n int64
	emit := func(line string) {
		t = t.Add(time.Duration(rng.Intn(40)) * time.Millisecond)
		s := t.Format("2006-01-02 15:04:05.000") + " [main] " + line + "\n"
		w.WriteString(s)
		n += int64(len(s))
	}
	for clients := 1; n < int64(mb)<<20; clients++ {
		id := fmt.Sprintf("kafka:samza-consumer-checkpoint-%d", clients)
		emit(fmt.Sprintf("KafkaCheckpointManager [INFO] Starting the checkpoint SystemConsumer from oldest offset %d", rng.Intn(5000)))
		emit("KafkaSystemConsumer [INFO] " + id + ": Consumer started")
		if clients%120 == 1 {
			emit("KafkaCheckpointManager [INFO] Stopping system consumer")
			emit("KafkaSystemConsumer [INFO] " + id + ": Stopping Samza kafkaConsumer ")
		}
		for i, k := 0, 50+rng.Intn(400); i < k; i++ {
			emit(noise[rng.Intn(len(noise))])
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path
}

var benchPatterns = []Pattern{
	Literal("Starting the checkpoint SystemConsumer"), Literal("Stopping system consumer"),
	Literal(": Consumer started"), Literal("Stopping Samza kafkaConsumer"),
}

// BenchmarkCountLogs measures one count of a 64 MiB log in the shapes the
// side-by-side script compares (1 and 4 literals, with and without a key and
// buckets), regexps with and without a literal to prefilter on, and the
// streaming paths. MB/s is input bytes per second.
func BenchmarkCountLogs(b *testing.B) {
	path := writeBenchLog(b, 64)
	fi, _ := os.Stat(path)
	keyed := CountOptions{Patterns: benchPatterns[:2], Key: `(\S+): (?:Consumer started|Stopping Samza kafkaConsumer)`,
		Pairs: []Pair{{Name: "consumers", Start: benchPatterns[2], Close: benchPatterns[3]}}}
	for _, bc := range []struct {
		name   string
		opts   CountOptions
		stream string
	}{
		{"1 literal, no buckets", CountOptions{Patterns: benchPatterns[:1], Bucket: BucketNone}, ""},
		{"4 literals, no buckets", CountOptions{Patterns: benchPatterns, Bucket: BucketNone}, ""},
		{"4 literals, buckets", CountOptions{Patterns: benchPatterns}, ""},
		{"4 literals, key and buckets", keyed, ""},
		{"regexp with literal", CountOptions{Patterns: []Pattern{Regexp(`checkpoint-\d+: Consumer started`)}, Bucket: BucketNone}, ""},
		{"regexp ignoring case", CountOptions{Patterns: []Pattern{Regexp(`(?i)stopping samza`)}, Bucket: BucketNone}, ""},
		{"regexp alternatives", CountOptions{Patterns: []Pattern{Regexp(`(WARN|ERROR) .*Consumer`)}, Bucket: BucketNone}, ""},
		{"regexp, literal on many lines", CountOptions{Patterns: []Pattern{Regexp(`\d{5} ms`)}, Bucket: BucketNone}, ""},
		{"regexp without literal", CountOptions{Patterns: []Pattern{Regexp(`^[0-9-]+ [0-9:.]+ \[\w+\] \w+$`)}, Bucket: BucketNone}, ""},
		{"4 literals, stream", CountOptions{Patterns: benchPatterns}, "plain"},
		{"4 literals, gzip", CountOptions{Patterns: benchPatterns}, "gzip"},
		{"4 literals, zstd", CountOptions{Patterns: benchPatterns}, "zstd"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var data []byte
			if bc.stream == "gzip" || bc.stream == "zstd" {
				raw, _ := os.ReadFile(path)
				data = compressBytes(b, bc.stream, raw)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				var in Input
				switch bc.stream {
				case "":
					f, _ := os.Open(path)
					defer f.Close()
					in = Input{Name: "bench", Reader: f}
				case "plain":
					f, _ := os.Open(path)
					defer f.Close()
					in = Input{Name: "bench", Reader: streamOnly{f}}
				default:
					in = Input{Name: "bench", Reader: bytes.NewReader(data)}
				}
				if _, err := Count(context.Background(), bc.opts, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLogFinder compares the pair scan with bytes.Index on 256 KiB of
// log, for a literal whose first byte is common.
func BenchmarkLogFinder(b *testing.B) {
	raw, err := os.ReadFile(writeBenchLog(b, 1))
	if err != nil {
		b.Fatal(err)
	}
	block := raw[:256<<10]
	pat := []byte(": Consumer started")
	countWith := func(index func([]byte) int) int {
		n := 0
		for s := block; ; {
			i := index(s)
			if i < 0 {
				return n
			}
			n++
			s = s[i+1:]
		}
	}
	f := newLogFinder(pat, false, newLogByteRanks(block[:sampleSize]), block[:sampleSize])
	want := countWith(func(s []byte) int { return bytes.Index(s, pat) })
	b.Run("pair scan", func(b *testing.B) {
		b.SetBytes(int64(len(block)))
		for b.Loop() {
			if countWith(f.index) != want {
				b.Fatal("counts differ")
			}
		}
	})
	b.Run("bytes.Index", func(b *testing.B) {
		b.SetBytes(int64(len(block)))
		for b.Loop() {
			countWith(func(s []byte) int { return bytes.Index(s, pat) })
		}
	})
}

// BenchmarkLogParseTime measures timestamp parsing for the common layouts.
func BenchmarkLogParseTime(b *testing.B) {
	lines := [][]byte{
		[]byte("2023-06-21 12:00:01.234 [main] KafkaCheckpointManager [INFO] x"),
		[]byte("[2020-02-14 01:34:02,114] INFO [GroupCoordinator 0]: x"),
		[]byte("\tat org.apache.samza.Foo(Foo.java:123) no timestamp here at all, a stack frame"),
	}
	for b.Loop() {
		for _, l := range lines {
			logline.Time(l)
		}
	}
}
