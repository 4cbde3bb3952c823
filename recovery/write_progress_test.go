package recovery

import (
	"context"
	"testing"
)

// TestWriteLogReportsEverySegment: WriteLog calls Progress once per segment
// written, across partitions, with k of n counting up to the log's segments and
// the running totals ending at the log's own.
func TestWriteLogReportsEverySegment(t *testing.T) {
	cfg := LogConfig{Partitions: 2, Segments: 3, BatchesPerSegment: 4, RecordsPerBatch: 5, ValueBytes: 64, Codec: CodecGzip, Format: FormatV0}
	var got []WriteProgress
	cfg.Progress = func(p WriteProgress) { got = append(got, p) }
	info, err := WriteLog(context.Background(), t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d progress calls, want 6: %+v", len(got), got)
	}
	for i, p := range got {
		if p.SegmentsWritten != int64(i+1) || p.Segments != 6 || p.Batches != int64(i+1)*4 || p.Records != int64(i+1)*20 {
			t.Errorf("call %d: %+v", i, p)
		}
		if i > 0 && p.Bytes <= got[i-1].Bytes {
			t.Errorf("call %d: bytes %d after %d", i, p.Bytes, got[i-1].Bytes)
		}
	}
	if last := got[len(got)-1]; last.Bytes != info.Bytes || last.Batches != info.Batches || last.Records != info.Records {
		t.Errorf("last call %+v, the log %+v", last, info)
	}
}
