package goroutines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
)

// goroutineNamesDump is a debug=2 dump of n goroutines, each in a function of its
// own with a name of about nameLen bytes: what a dump costs in memory grows with
// every goroutine, frame and string.
func goroutineNamesDump(n, nameLen int) []byte {
	var b bytes.Buffer
	pad := strings.Repeat("x", nameLen)
	for i := range n {
		fmt.Fprintf(&b, "goroutine %d [chan receive]:\nmain.f%d%s()\n\t/src/main.go:%d +0x1\n\n", i+1, i, pad, i%1000+1)
	}
	return b.Bytes()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestParseWithinRefusesADumpBeyondItsBudget: a text dump whose goroutines,
// frames and strings need more than the analysis's budget is refused with
// ErrTooLarge naming the limit, after reading about the budget's worth of it (not
// the whole dump), and leaves nothing charged; the same dump within a budget that
// fits parses as without one, and what it holds stays charged as MemSize.
func TestParseWithinRefusesADumpBeyondItsBudget(t *testing.T) {
	data := goroutineNamesDump(40000, 100) // 6 MB of text, more in memory
	server := analyze.NewBudget(1 << 40)
	small := server.Child(1 << 20)
	in := &countingReader{r: bytes.NewReader(data)}
	_, err := ParseWithin(in, 0, small)
	if !errors.Is(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), "1.0 MB") || !strings.Contains(err.Error(), "-memory-budget") {
		t.Fatalf("a %d-byte dump within 1 MiB: %v, want ErrTooLarge naming 1.0 MB and -memory-budget", len(data), err)
	}
	// The text is read in 64 KiB lines at most; a goroutine costs more than its
	// text, so the parse stops within the budget's worth of input.
	if in.n > 1<<20+256<<10 {
		t.Errorf("read %d of %d bytes before refusing; want at most the budget's worth and the buffers", in.n, len(data))
	}
	small.Release()
	if server.Used() != 0 {
		t.Errorf("the server's budget holds %d bytes after the refused parse", server.Used())
	}

	big := server.Child(1 << 30)
	d, err := ParseWithin(bytes.NewReader(data), 0, big)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Goroutines) != 40000 || len(Groups(d)) != len(Groups(plain)) {
		t.Errorf("within a budget: %d goroutines, %d groups; without: %d groups", len(d.Goroutines), len(Groups(d)), len(Groups(plain)))
	}
	// Every goroutine's name is kept once: the charge covers at least the text.
	if d.MemSize() < int64(len(data)) || big.Used() < d.MemSize() || plain.MemSize() != d.MemSize() {
		t.Errorf("MemSize %d (without a budget %d), charged %d, for %d bytes of text", d.MemSize(), plain.MemSize(), big.Used(), len(data))
	}
	big.Release()
}

// TestParseWithinRefusesAProfileBeyondItsBudget: a goroutine profile.proto is
// charged for what decoding it may hold before it is decoded, and the dump made of
// it as the text's; the decoding's charge is given back afterwards.
func TestParseWithinRefusesAProfileBeyondItsBudget(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "goroutine", Unit: "count"}}, PeriodType: &profile.ValueType{Type: "goroutine", Unit: "count"}, Period: 1}
	for i := range 20000 {
		fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("main.f%d%s", i, strings.Repeat("y", 60)), Filename: "/src/main.go"}
		loc := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: 1}}}
		p.Function, p.Location = append(p.Function, fn), append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{1}})
	}
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	server := analyze.NewBudget(1 << 40)
	small := server.Child(int64(buf.Len()) * 4)
	if _, err := ParseWithin(bytes.NewReader(buf.Bytes()), 0, small); !errors.Is(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), "-memory-budget") {
		t.Fatalf("a %d-byte goroutine profile within 4 times its size: %v, want ErrTooLarge", buf.Len(), err)
	}
	small.Release()
	big := server.Child(1 << 30)
	d, err := ParseWithin(bytes.NewReader(buf.Bytes()), 0, big)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total() != 20000 || big.Used() != d.MemSize() || d.MemSize() == 0 {
		t.Errorf("%d goroutines, charged %d after the parse, MemSize %d; want 20000 and the charge equal to MemSize", d.Total(), big.Used(), d.MemSize())
	}
	big.Release()
	if server.Used() != 0 {
		t.Errorf("the server holds %d after the release", server.Used())
	}
}
