package jvm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/jvmtext"
)

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

// nmtText is a native memory report of n categories.
func nmtText(n int) string {
	var b strings.Builder
	b.WriteString("Native Memory Tracking:\n\nTotal: reserved=1000KB, committed=100KB\n")
	for i := range n {
		fmt.Fprintf(&b, "-   Category%d%s (reserved=1KB, committed=1KB)\n", i, strings.Repeat("z", 40))
	}
	return b.String()
}

// TestParsersRefuseBeyondTheirBudget: each JVM parser charges what it keeps
// (rows, threads, frames, categories) before keeping it, so a text whose parse
// needs more than the budget is refused with ErrTooLarge naming the limit after
// reading about the budget's worth of it, leaving nothing charged after Release;
// within a budget that fits it parses as without one.
func TestParsersRefuseBeyondTheirBudget(t *testing.T) {
	histogram := jvmtext.BigHistogram(100_000, 0)
	threads := jvmtext.BigDump(20_000)
	nmt := nmtText(100_000)
	for _, c := range []struct {
		name  string
		text  string
		parse func(io.Reader, *analyze.Budget) (int, error)
	}{
		{"histogram", histogram, func(r io.Reader, b *analyze.Budget) (int, error) {
			hs, err := ParseHistogramsWithin(r, b)
			if err != nil {
				return 0, err
			}
			return len(hs[0].Classes), nil
		}},
		{"threads", threads, func(r io.Reader, b *analyze.Budget) (int, error) {
			rep, err := AnalyzeThreadsWithin(r, b)
			if err != nil {
				return 0, err
			}
			return rep.Groups.Total, nil
		}},
		{"nmt", nmt, func(r io.Reader, b *analyze.Budget) (int, error) {
			ns, err := ParseNMTsWithin(r, b)
			if err != nil {
				return 0, err
			}
			return len(ns[0].Categories), nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := analyze.NewBudget(1 << 40)
			small := server.Child(1 << 20)
			in := &countingReader{r: strings.NewReader(c.text)}
			_, err := c.parse(in, small)
			if !errors.Is(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), "1.0 MB") || !strings.Contains(err.Error(), "-memory-budget") {
				t.Fatalf("%d bytes within 1 MB: %v, want ErrTooLarge naming 1.0 MB and -memory-budget", len(c.text), err)
			}
			if in.n > 1<<20+256<<10 {
				t.Errorf("read %d of %d bytes before refusing; want about the budget's worth", in.n, len(c.text))
			}
			small.Release()
			big := server.Child(1 << 30)
			n, err := c.parse(strings.NewReader(c.text), big)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.parse(strings.NewReader(c.text), nil)
			if err != nil || n != want || n == 0 {
				t.Errorf("within a budget %d, without %d (%v)", n, want, err)
			}
			if big.Used() < int64(len(c.text))/4 {
				t.Errorf("charged %d for %d bytes of text", big.Used(), len(c.text))
			}
			big.Release()
			if server.Used() != 0 {
				t.Errorf("the server holds %d after the releases", server.Used())
			}
		})
	}
}

// checkWithin parses data within a budget of 4 KiB and within an ample one:
// the small one either refuses it with ErrTooLarge or parses it as the ample one
// does, and both are empty again after Release (for the fuzz targets).
func checkWithin(t *testing.T, data []byte, parse func(io.Reader, *analyze.Budget) (int, error)) {
	t.Helper()
	server := analyze.NewBudget(1 << 40)
	small, ample := server.Child(4<<10), server.Child(1<<30)
	n, err := parse(bytes.NewReader(data), small)
	want, wantErr := parse(bytes.NewReader(data), ample)
	if !errors.Is(err, analyze.ErrTooLarge) && (n != want || (err == nil) != (wantErr == nil)) {
		t.Fatalf("within 4 KiB: %d, %v; within 1 GiB: %d, %v", n, err, want, wantErr)
	}
	small.Release()
	ample.Release()
	if server.Used() != 0 {
		t.Fatalf("the budget holds %d after the releases", server.Used())
	}
}
