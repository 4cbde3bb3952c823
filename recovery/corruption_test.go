package recovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/greptest"
)

// batchPositions returns the position and first offset of every batch of a
// segment, read before it is damaged.
func batchPositions(t *testing.T, path string) (positions, offsets []int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r := NewBatchReader(f, st.Size(), 0)
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return positions, offsets
		}
		if err != nil {
			t.Fatal(err)
		}
		positions = append(positions, b.Position)
		offsets = append(offsets, b.Header.BaseOffset)
	}
}

// grepCount runs the real grep -c -F, the anchor of every log count.
func grepCount(t *testing.T, pattern, file string) int {
	return int(greptest.Count(t, pattern, false, file))
}

// damage is one way to break the middle segment of partition 0.
type damage struct {
	name string
	// apply breaks the segment file (batches at positions) and returns the
	// index of the first batch that must not survive.
	apply func(t *testing.T, path string, positions []int64) int
	// invalid is true when Kafka reports the batch as invalid (WARN Found
	// invalid messages), false for a torn write at the end of the file.
	invalid bool
	reason  string
}

var damages = []damage{
	{name: "flipped byte in records", invalid: true, reason: "Record is corrupt (stored crc = ",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte { b[pos[5]+BatchHeaderSize+20] ^= 0x01; return b })
			return 5
		}},
	{name: "flipped byte in header record count", invalid: true, reason: "Record is corrupt (stored crc = ",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte { b[pos[7]+offsetRecordCount+3] ^= 0x40; return b })
			return 7
		}},
	{name: "bad magic", invalid: true, reason: "Invalid magic found in record: 7",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte { b[pos[3]+offsetMagic] = 7; return b })
			return 3
		}},
	// Magic 1 makes the batch read as a v1 message (the magic decides the
	// layout, as in FileLogInputStream), whose CRC-32 then fails.
	{name: "magic of a v1 message", invalid: true, reason: "Message is corrupt (stored crc = ",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte { b[pos[3]+offsetMagic] = 1; return b })
			return 3
		}},
	{name: "size below the header", invalid: true, reason: "Found record size 20 smaller than minimum record overhead (61)",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte {
				copy(b[pos[4]+offsetBatchLength:], []byte{0, 0, 0, 8})
				return b
			})
			return 4
		}},
	{name: "truncated last batch", reason: "incomplete batch: header claims",
		apply: func(t *testing.T, path string, pos []int64) int {
			last := len(pos) - 1
			rewrite(t, path, func(b []byte) []byte { return b[:pos[last]+(int64(len(b))-pos[last])/2] })
			return last
		}},
	{name: "torn header", reason: "incomplete batch: 30 bytes left",
		apply: func(t *testing.T, path string, pos []int64) int {
			last := len(pos) - 1
			rewrite(t, path, func(b []byte) []byte { return b[:pos[last]+30] })
			return last
		}},
	// Zeros read as a v0 message (magic 0) of size 0, below its minimum.
	{name: "zeroed tail", invalid: true, reason: "Found record size 12 smaller than minimum record overhead (26)",
		apply: func(t *testing.T, path string, pos []int64) int {
			rewrite(t, path, func(b []byte) []byte { clear(b[pos[9]:]); return b })
			return 9
		}},
}

func rewrite(t *testing.T, path string, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptionTruncatesAtTheBatch damages the middle segment of partition 0 and
// checks, for every codec and variant, the truncation point, the deleted later
// segment, the end offset and the Kafka log lines (counted with grep).
func TestCorruptionTruncatesAtTheBatch(t *testing.T) {
	for _, codec := range Codecs {
		// Two partitions for none, which also checks that the other partition is
		// left alone; one for the compressed codecs, to keep the test quick.
		cfg := LogConfig{Topic: "orders", Partitions: 1, Segments: 3, BatchesPerSegment: 12,
			RecordsPerBatch: 6, ValueBytes: 300, Codec: codec, Format: FormatV2, IndexIntervalBytes: 1000, Seed: 7}
		if codec == CodecNone {
			cfg.Partitions = 2
		}
		clean, _ := writeLog(t, cfg)
		for _, d := range damages {
			t.Run(codec.String()+"/"+d.name, func(t *testing.T) {
				dir := copyDir(t, clean)
				seg := filepath.Join(dir, "orders-0", SegmentFileName(72, logSuffix))
				positions, offsets := batchPositions(t, seg)
				bad := d.apply(t, seg, positions)
				damaged := readFiles(t, dir)
				var reference Result
				for i, variant := range Variants {
					run := copyDir(t, dir)
					logFile := filepath.Join(t.TempDir(), "server.log")
					res := recoverWithLog(t, run, logFile, variant, cfg.IndexIntervalBytes)
					checkTruncation(t, variant, d, res, positions[bad], offsets[bad], int64(len(damaged["orders-0/"+SegmentFileName(72, logSuffix)])))
					if variant == VariantLeaky || variant == VariantHeader {
						// The grep anchor for the two ends; the others must match them.
						checkTruncationLog(t, variant, d, cfg.Partitions, logFile, filepath.Join(run, "orders-0", SegmentFileName(72, logSuffix)), positions[bad], offsets[bad])
					}
					if _, err := os.Stat(filepath.Join(run, "orders-0", SegmentFileName(144, logSuffix))); !os.IsNotExist(err) {
						t.Errorf("%s: the segment after the truncated one was not deleted (%v)", variant, err)
					}
					// The segments of the undamaged partition stay as they were; their
					// indexes are rebuilt by each variant's rule (TestRoundTripEveryCodecAndVariant).
					if cfg.Partitions == 2 && !reflect.DeepEqual(logFiles(readFiles(t, filepath.Join(run, "orders-1"))), logFiles(readFiles(t, filepath.Join(dir, "orders-1")))) {
						t.Errorf("%s: the undamaged partition changed", variant)
					}
					if i == 0 {
						reference = comparable(res)
					} else if got := comparable(res); !reflect.DeepEqual(got, reference) {
						t.Errorf("%s recovered differently from %s:\n%+v\n%+v", variant, Variants[0], got, reference)
					}
					// A second recovery finds a clean log.
					again, err := Recover(context.Background(), run, RecoverConfig{Variant: VariantHeader, IndexIntervalBytes: cfg.IndexIntervalBytes})
					if err != nil || again.Truncations != 0 || again.Partitions[0].LogEndOffset != offsets[bad] {
						t.Errorf("%s: second recovery: %+v, %v", variant, again.Counters, err)
					}
				}
			})
		}
	}
}

// logFiles keeps the segment files of a readFiles map.
func logFiles(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, b := range files {
		if strings.HasSuffix(name, logSuffix) {
			out[name] = b
		}
	}
	return out
}

func recoverWithLog(t *testing.T, dir, logFile string, v Variant, interval int) Result {
	t.Helper()
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Recover(context.Background(), dir, RecoverConfig{Variant: v, IndexIntervalBytes: interval, KeepBatches: true, Log: f})
	if err != nil {
		t.Fatalf("%s: %v", v, err)
	}
	return res
}

func checkTruncation(t *testing.T, v Variant, d damage, res Result, pos, offset, size int64) {
	t.Helper()
	pr := res.Partitions[0]
	if len(pr.Recovered) != 2 || pr.NumSegments != 2 || !reflect.DeepEqual(pr.Deleted, []int64{144}) || pr.LogEndOffset != offset {
		t.Fatalf("%s: partition 0: recovered %d, segments %d, deleted %v, end offset %d (want 2, 2, [144], %d)",
			v, len(pr.Recovered), pr.NumSegments, pr.Deleted, pr.LogEndOffset, offset)
	}
	sr := pr.Recovered[1]
	if sr.ValidBytes != pos || sr.TruncatedBytes != size-pos || sr.NextOffset != offset || sr.Corruption == nil ||
		sr.Corruption.Position != pos || sr.Corruption.Incomplete == d.invalid || !strings.Contains(sr.Corruption.Reason, d.reason) {
		t.Fatalf("%s: segment 72: %+v (corruption %+v), want truncation at byte %d for %q", v, sr, sr.Corruption, pos, d.reason)
	}
	if st, err := os.Stat(sr.Path); err != nil || st.Size() != pos {
		t.Fatalf("%s: segment file is %v bytes after recovery, want %d", v, st.Size(), pos)
	}
	if res.Truncations != 1 || res.TruncatedBytes != size-pos || res.SegmentsDeleted != 1 || res.SegmentsDone != res.Segments {
		t.Fatalf("%s: counters %+v", v, res.Counters)
	}
	idx, err := ReadIndex(strings.TrimSuffix(sr.Path, logSuffix)+indexSuffix, 72)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range idx {
		if e.Position >= pos || e.Offset >= offset {
			t.Fatalf("%s: index entry %+v beyond the truncation point", v, e)
		}
	}
}

func checkTruncationLog(t *testing.T, v Variant, d damage, partitions int, logFile, segPath string, pos, offset int64) {
	t.Helper()
	invalid := fmt.Sprintf("WARN Found invalid messages in log segment %s at byte offset %d: %s", segPath, pos, d.reason)
	corruption := fmt.Sprintf("WARN Corruption found in segment 72 of log orders-0, truncating to offset %d. (kafka.log.Log)", offset)
	wantInvalid := 0
	if d.invalid {
		wantInvalid = 1
	}
	if n := grepCount(t, invalid, logFile); n != wantInvalid {
		b, _ := os.ReadFile(logFile)
		t.Fatalf("%s: grep -c %q = %d, want %d\n%s", v, invalid, n, wantInvalid, lastLines(b, 12))
	}
	if n := grepCount(t, corruption, logFile); n != 1 {
		t.Fatalf("%s: grep -c %q = %d, want 1", v, corruption, n)
	}
	want := map[string]int{
		"INFO Recovering unflushed segment ":                                                                            2 + 3*(partitions-1),
		"INFO Deleting segment 144 from log orders-0.":                                                                  1,
		"INFO Scheduling log segment 144 for log orders-0 for deletion.":                                                1,
		"INFO Completed load of log orders-0 with log end offset " + strconv.FormatInt(offset, 10) + " (kafka.log.Log)": 1,
	}
	if partitions == 2 {
		want["INFO Completed load of log orders-1 with log end offset 216 (kafka.log.Log)"] = 1
	}
	for pattern, want := range want {
		if n := grepCount(t, pattern, logFile); n != want {
			t.Errorf("%s: grep -c %q = %d, want %d", v, pattern, n, want)
		}
	}
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-n):], []byte("\n")))
}

// TestGarbageSegmentIsTruncatedToNothing recovers a segment of random bytes.
func TestGarbageSegmentIsTruncatedToNothing(t *testing.T) {
	dir := t.TempDir()
	pdir := filepath.Join(dir, "junk-0")
	os.MkdirAll(pdir, 0o755)
	garbage := bytes.Repeat([]byte("not a kafka batch\x00\xff"), 500)
	os.WriteFile(filepath.Join(pdir, SegmentFileName(0, logSuffix)), garbage, 0o644)
	os.WriteFile(filepath.Join(pdir, SegmentFileName(500, logSuffix)), garbage, 0o644)
	res, err := Recover(context.Background(), dir, RecoverConfig{Variant: VariantDrain})
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Partitions[0]
	if pr.LogEndOffset != 0 || pr.NumSegments != 1 || res.TruncatedBytes != int64(len(garbage)) || res.SegmentsDeleted != 1 {
		t.Fatalf("garbage recovered as %+v / %+v", pr, res.Counters)
	}
}

// TestRecoverStopsOnCancel checks that a cancelled context ends recovery early.
func TestRecoverStopsOnCancel(t *testing.T) {
	dir, _ := writeLog(t, smallLog(CodecNone))
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Recover(ctx, dir, RecoverConfig{Progress: func(Progress) { cancel() }})
	if !errors.Is(err, context.Canceled) || res.SegmentsDone != 1 {
		t.Fatalf("after cancel: %v, %d segments done", err, res.SegmentsDone)
	}
}
