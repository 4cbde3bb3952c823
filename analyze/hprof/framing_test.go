package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// recordStarts lists the offsets of a dump's top-level records (and the file's
// end last), read with encoding/binary, not the package's reader.
func recordStarts(t *testing.T, data []byte) (headerEnd int, starts []int) {
	t.Helper()
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		t.Fatal("no header")
	}
	headerEnd = nul + 1 + 4 + 8
	for pos := headerEnd; pos < len(data); {
		starts = append(starts, pos)
		pos += 9 + int(binary.BigEndian.Uint32(data[pos+5:]))
	}
	return headerEnd, append(starts, len(data))
}

// TestCheckFraming checks a real dump's framing whole (it passes) and cut at
// record boundaries, one and five bytes into record headers and in the middle
// of record bodies (of the first and last 1,000 records, every change of tag and
// every 25th record), and inside the file header (each fails with
// ErrMalformed, or ErrUnsupportedKind before the version ends), then with
// identifiers of 3 bytes and a record claiming more bytes than the file holds.
func TestCheckFraming(t *testing.T) {
	jh := runJava(t, "LeakShape", false, []string{"-XX:+UseSerialGC", "-Xmx64m"}, "3", "4096", "30", "10")
	data, err := os.ReadFile(jh.Dump)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFraming(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("the whole dump: %v", err)
	}
	headerEnd, starts := recordStarts(t, data)
	if data[starts[len(starts)-2]] != tagHeapDumpEnd {
		t.Fatalf("the dump's last record is 0x%02x, not HEAP DUMP END", data[starts[len(starts)-2]])
	}
	cuts := map[int]bool{}
	for i := 1; i < headerEnd; i++ {
		cuts[i] = true
	}
	// Every record of the dump's first and last 1,000, every record whose tag
	// differs from the one before (the heap dump segments among them), and every
	// 25th of the others (each cut costs a walk of the records before it).
	records := len(starts) - 1
	for k, at := range starts[:records] {
		if k >= 1000 && k < records-1000 && k%25 != 0 && data[at] == data[starts[k-1]] {
			continue
		}
		cuts[at], cuts[at+1], cuts[at+5] = true, true, true
		cuts[(at+9+starts[k+1])/2] = true
	}
	t.Logf("%d records, %d cuts", len(starts)-1, len(cuts))
	for cut := range cuts {
		if cut >= len(data) {
			continue
		}
		err := CheckFraming(bytes.NewReader(data[:cut]), int64(cut))
		if !errors.Is(err, analyze.ErrMalformed) && !(cut < headerEnd-12 && errors.Is(err, analyze.ErrUnsupportedKind)) {
			t.Fatalf("cut at %d of %d bytes: %v, want ErrMalformed", cut, len(data), err)
		}
	}
	ids3 := bytes.Clone(data)
	binary.BigEndian.PutUint32(ids3[headerEnd-12:], 3)
	if err := CheckFraming(bytes.NewReader(ids3), int64(len(ids3))); !errors.Is(err, analyze.ErrMalformed) {
		t.Errorf("identifier size 3: %v", err)
	}
	long := bytes.Clone(data)
	binary.BigEndian.PutUint32(long[starts[len(starts)/2]+5:], 1<<31)
	if err := CheckFraming(bytes.NewReader(long), int64(len(long))); !errors.Is(err, analyze.ErrMalformed) {
		t.Errorf("a record length past the end: %v", err)
	}
}
