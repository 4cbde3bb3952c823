package analyze

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestLogMixedYearlessAndDated counts a yearless log (erigon) with a dated one
// (HDFS): the yearless lines cannot share the dated time axis, so they count as
// untimed, every count still adds up, and the report encodes as JSON (a bucket
// before year 0 did not).
func TestLogMixedYearlessAndDated(t *testing.T) {
	var inputs []LogInput
	for _, name := range []string{"erigon-node.log", "loghub-HDFS_2k.log"} {
		f, err := os.Open(fixtures.Path(t, "logs", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		inputs = append(inputs, LogInput{Name: name, Reader: f})
	}
	rep, err := CountLogs(context.Background(), LogCountOptions{Patterns: []LogPattern{LogLiteral("INFO")}}, inputs...)
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
