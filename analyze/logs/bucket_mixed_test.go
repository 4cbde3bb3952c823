package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestLogMixedYearlessAndDated counts a yearless log (erigon) with a dated one
// (HDFS): the yearless lines cannot share the dated time axis, so they count as
// untimed, every count still adds up, and the report encodes as JSON (a bucket
// before year 0 did not).
func TestLogMixedYearlessAndDated(t *testing.T) {
	var inputs []Input
	for _, name := range []string{"erigon-node.log", "loghub-HDFS_2k.log"} {
		f, err := os.Open(fixtures.Path(t, "logs", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		inputs = append(inputs, Input{Name: name, Reader: f})
	}
	rep, err := Count(context.Background(), CountOptions{Patterns: []Pattern{Literal("INFO")}}, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("the report does not encode: %v", err)
	}
	if !rep.YearlessUntimed || rep.Yearless || len(rep.Buckets) == 0 {
		t.Fatalf("yearless_untimed %v yearless %v buckets %d", rep.YearlessUntimed, rep.Yearless, len(rep.Buckets))
	}
	if rep.Buckets[0].Start.Year() < 2000 {
		t.Errorf("the time axis starts in %d", rep.Buckets[0].Start.Year())
	}
	var inBuckets int64
	for _, b := range rep.Buckets {
		inBuckets += b.Counts[0]
	}
	if got, want := inBuckets+rep.Untimed[0], rep.Patterns[0].Count; got != want {
		t.Errorf("buckets %d + untimed %d = %d, the count is %d", inBuckets, rep.Untimed[0], got, want)
	}
	if rep.Untimed[0] < rep.Patterns[0].Files[0] {
		t.Errorf("untimed %d holds fewer than erigon's %d matching lines", rep.Untimed[0], rep.Patterns[0].Files[0])
	}
}

// TestLogYearlessAndDatedInOneFile: one file with dated and yearless lines
// (found by FuzzCountLogs) counts the same however it is split into parts: the
// yearless line is untimed, the dated ones are on a dated axis of 1 s buckets
// (a part that held both once made one set from year 0 to today, widened to
// 97-day buckets, with a bucket in year -1 that JSON cannot hold).
func TestLogYearlessAndDatedInOneFile(t *testing.T) {
	data := []byte("2024-01-10 00:00:00 a\nJan 10 00:00:00 a\n2024-01-10 00:00:01 a\nx a\n")
	for _, part := range []int{1 << 20, 7, 30} {
		o := CountOptions{Patterns: []Pattern{Literal("a")}, Bucket: time.Second}
		o.partSize, o.blockSize, o.maxLine, o.Workers = part, 16, 64, 3
		rep, err := Count(context.Background(), o, Input{Name: "f", Reader: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, b := range rep.Buckets {
			if b.Counts[0] != 0 {
				got[b.Start.Format(time.RFC3339)] = b.Counts[0]
			}
		}
		want := map[string]int64{"2024-01-10T00:00:00Z": 1, "2024-01-10T00:00:01Z": 2}
		if rep.Patterns[0].Count != 4 || rep.Untimed[0] != 1 || !rep.YearlessUntimed || fmt.Sprint(got) != fmt.Sprint(want) || rep.BucketMillis != 1000 {
			t.Errorf("parts of %d bytes: count %d, untimed %v, yearless untimed %v, %d ms buckets %v; want 4, [1], true, 1000 ms %v",
				part, rep.Patterns[0].Count, rep.Untimed, rep.YearlessUntimed, rep.BucketMillis, got, want)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Errorf("parts of %d bytes: the report does not encode: %v", part, err)
		}
	}
}
