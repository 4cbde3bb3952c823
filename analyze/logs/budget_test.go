package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// readCounter counts the bytes read through it.
type readCounter struct {
	r io.Reader
	n int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestCountWithinABudget: a count charges the most its tables and buffers can
// hold before reading anything, holds it while it runs and gives it back when it
// returns; a budget without room for it refuses the count with ErrTooLarge naming
// the limit (ErrBusy when the server's budget is held by others) before a byte is
// read.
func TestCountWithinABudget(t *testing.T) {
	var text strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&text, "2024-05-01T12:%02d:%02d.000Z INFO request %d served in %dms\n", i/60%60, i%60, i, i%97)
	}
	opts := CountOptions{Patterns: []Pattern{Literal("served")}, Overview: true, Workers: 1}
	pl, err := newLogPlan(opts)
	if err != nil {
		t.Fatal(err)
	}
	bound := pl.memoryBound(opts)
	if bound < MaxLineBytes || bound > 64<<20 {
		t.Fatalf("bound %d for one worker with the overview: want the longest line and the tables, under 64 MiB", bound)
	}

	server := analyze.NewBudget(1 << 40)
	small := server.Child(bound / 2)
	in := &readCounter{r: strings.NewReader(text.String())}
	o := opts
	o.Budget = small
	_, err = Count(context.Background(), o, Input{Name: "app.log", Reader: in})
	if !errors.Is(err, analyze.ErrTooLarge) || !strings.Contains(err.Error(), analyze.FormatBytes(bound/2)) || !strings.Contains(err.Error(), "-memory-budget") {
		t.Fatalf("within half the bound: %v, want ErrTooLarge naming %s", err, analyze.FormatBytes(bound/2))
	}
	if in.n != 0 || small.Used() != 0 {
		t.Errorf("read %d bytes and holds %d after refusing", in.n, small.Used())
	}

	held := int64(-1)
	b := server.Child(1 << 30)
	o.Budget = b
	o.Progress = func(Progress) { held = b.Used() }
	rep, err := Count(context.Background(), o, Input{Name: "app.log", Reader: strings.NewReader(text.String())})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Patterns[0].Count != 20000 || held != bound || b.Used() != 0 {
		t.Errorf("counted %d, held %d while counting (bound %d), %d after", rep.Patterns[0].Count, held, bound, b.Used())
	}

	busy := analyze.NewBudget(bound + bound/2)
	other := busy.Child(bound)
	if err := other.Charge(bound); err != nil {
		t.Fatal(err)
	}
	o.Budget, o.Progress = busy.Child(bound), nil
	if _, err := Count(context.Background(), o, Input{Name: "app.log", Reader: strings.NewReader(text.String())}); !errors.Is(err, analyze.ErrBusy) {
		t.Errorf("with the server's budget held by another count: %v, want ErrBusy", err)
	}
	other.Release()
}
