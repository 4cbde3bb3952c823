package logs

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// bucketLog writes one line per entry: a time (or "" for a line without one)
// and a message.
func bucketLog(entries ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(entries); i += 2 {
		if entries[i] != "" {
			b.WriteString(entries[i] + " ")
		}
		b.WriteString(entries[i+1] + "\n")
	}
	return b.String()
}

// TestCountLogsBucketBoundaries checks fixed one-minute buckets by hand: a
// line a millisecond before a minute and one at it fall apart, lines without
// a timestamp go where the line above is, lines before any timestamp are
// untimed, empty minutes in between are present, and the running balance of
// a pair counts the untimed lines too.
func TestCountLogsBucketBoundaries(t *testing.T) {
	log := bucketLog(
		"", "start before any timestamp",
		"2024-05-01 10:00:00.000", "start a",
		"2024-05-01 10:00:59.999", "start b",
		"", "start inherits 10:00:59.999",
		"2024-05-01 10:01:00.000", "close a",
		"2024-05-01 10:01:30.000", "noise",
		"2024-05-01 10:03:00.001", "close b",
		"", "close inherits 10:03",
	)
	path := writeLog(t, "b.log", log)
	opts := CountOptions{Bucket: time.Minute, Patterns: []Pattern{Literal("noise")},
		Pairs: []Pair{{Name: "p", Start: Literal("start"), Close: Literal("close")}}}
	type row struct {
		start  string
		counts []int64 // noise, start, close
		open   int64
	}
	want := []row{
		{"10:00", []int64{0, 3, 0}, 4},
		{"10:01", []int64{1, 0, 1}, 3},
		{"10:02", []int64{0, 0, 0}, 3},
		{"10:03", []int64{0, 0, 2}, 1},
	}
	for _, v := range []countVariant{{name: "default"}, {name: "stream", stream: true}, {name: "line parts", block: 16, part: 1, worker: 2}} {
		rep := countFiles(t, v, opts, path)
		if rep.BucketWidth != "1m" || rep.BucketMillis != 60000 {
			t.Errorf("%s: width %q %d, want 1m", v.name, rep.BucketWidth, rep.BucketMillis)
		}
		if fmt.Sprint(rep.Untimed) != "[0 1 0]" {
			t.Errorf("%s: untimed %v, want [0 1 0]", v.name, rep.Untimed)
		}
		if len(rep.Buckets) != len(want) {
			t.Fatalf("%s: %d buckets, want %d: %+v", v.name, len(rep.Buckets), len(want), rep.Buckets)
		}
		for i, w := range want {
			b := rep.Buckets[i]
			if b.Start.Format("15:04") != w.start || fmt.Sprint(b.Counts) != fmt.Sprint(w.counts) || len(b.Open) != 1 || b.Open[0] != w.open {
				t.Errorf("%s: bucket %d = %s %v open %v, want %s %v open %d", v.name, i, b.Start.Format("15:04:05.000"), b.Counts, b.Open, w.start, w.counts, w.open)
			}
		}
	}
}

// TestCountLogsAutoBuckets checks that automatic buckets give a chart of 50 to
// 300 bars whatever the span, that they add up to the counts, and that a
// chosen width too fine for the span is widened past MaxBuckets.
func TestCountLogsAutoBuckets(t *testing.T) {
	for _, span := range []time.Duration{time.Second, 7 * time.Second, 90 * time.Second, time.Hour, 26 * time.Hour,
		9 * 24 * time.Hour, 400 * 24 * time.Hour, 30 * 365 * 24 * time.Hour} {
		var b strings.Builder
		t0 := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
		const lines = 997
		for i := 0; i < lines; i++ {
			ts := t0.Add(time.Duration(float64(span) * float64(i) / (lines - 1)))
			fmt.Fprintf(&b, "%s hit %d\n", ts.Format("2006-01-02T15:04:05.000Z"), i)
		}
		path := writeLog(t, "auto.log", b.String())
		for _, v := range []countVariant{{name: "default"}, {name: "parts", block: 512, part: 2000, worker: 2}} {
			rep := countFiles(t, v, CountOptions{Patterns: []Pattern{Literal(" hit ")}}, path)
			n := len(rep.Buckets)
			if n < MinAutoBuckets || n > MaxAutoBuckets {
				t.Errorf("span %v (%s): %d buckets of %s, want 50–300", span, v.name, n, rep.BucketWidth)
			}
			var sum int64
			for _, bk := range rep.Buckets {
				sum += bk.Counts[0]
			}
			if sum != lines || rep.Patterns[0].Count != lines {
				t.Errorf("span %v (%s): buckets add up to %d, count %d, want %d", span, v.name, sum, rep.Patterns[0].Count, lines)
			}
			first := rep.Buckets[0].Start
			if first.After(t0) || !first.Add(time.Duration(rep.BucketMillis)*time.Millisecond).After(t0) {
				t.Errorf("span %v (%s): first bucket %v does not hold the first line at %v", span, v.name, first, t0)
			}
		}
	}
	var b strings.Builder
	for i := 0; i < 3600; i++ {
		fmt.Fprintf(&b, "2021-01-01 %02d:%02d:%02d.000 hit\n", i/3600, i/60%60, i%60)
	}
	rep := countFiles(t, countVariant{}, CountOptions{Bucket: time.Millisecond, Patterns: []Pattern{Literal("hit")}}, writeLog(t, "h.log", b.String()))
	if !rep.BucketWidened || len(rep.Buckets) > MaxBuckets || rep.BucketMillis <= 1 {
		t.Errorf("1ms over an hour: widened=%v, %d buckets of %s; want widened to at most %d", rep.BucketWidened, len(rep.Buckets), rep.BucketWidth, MaxBuckets)
	}
}

// TestCountLogsYearlessAndNone checks a log whose timestamps have no year (the
// erigon fixture layout) and that -bucket none turns the series off.
func TestCountLogsYearlessAndNone(t *testing.T) {
	log := "[INFO] [02-21|11:55:36.680] Starting node\n[WARN] [02-21|11:57:01.000] peer dropped\n[INFO] [02-21|12:10:00.000] Starting node\n"
	path := writeLog(t, "geth.log", log)
	rep := countFiles(t, countVariant{}, CountOptions{Patterns: []Pattern{Literal("Starting node")}}, path)
	if !rep.Yearless || len(rep.Buckets) < MinAutoBuckets || rep.Buckets[0].Start.Month() != time.February {
		t.Errorf("yearless: %v, %d buckets from %v", rep.Yearless, len(rep.Buckets), rep.Buckets[0].Start)
	}
	if s := FormatTime(&rep.Buckets[0].Start); !strings.HasPrefix(s, "02-21 11:5") {
		t.Errorf("yearless time shown as %q, want 02-21 11:5…", s)
	}
	rep = countFiles(t, countVariant{}, CountOptions{Bucket: BucketNone, Patterns: []Pattern{Literal("Starting node")}}, path)
	if len(rep.Buckets) != 0 || rep.BucketWidth != "" || rep.Patterns[0].Count != 2 {
		t.Errorf("bucket none: %d buckets, width %q, count %d", len(rep.Buckets), rep.BucketWidth, rep.Patterns[0].Count)
	}
}

// TestLogDuration checks the bucket width notation both ways.
func TestLogDuration(t *testing.T) {
	for _, tc := range []struct {
		text string
		d    time.Duration
	}{{"1m", time.Minute}, {"30s", 30 * time.Second}, {"1h", time.Hour}, {"1h30m", 90 * time.Minute}, {"10d", 240 * time.Hour}, {"200ms", 200 * time.Millisecond}} {
		if got := FormatDuration(tc.d); got != tc.text {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.text)
		}
		if got, err := ParseDuration(tc.text); err != nil || got != tc.d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.text, got, err, tc.d)
		}
	}
	for _, bad := range []string{"", "0", "-1m", "xd", "0d", "soon"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}
