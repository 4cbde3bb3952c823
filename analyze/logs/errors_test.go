package logs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"

	"go.uber.org/goleak"
)

// TestCountLogsInvalidOptions checks that every bad option is refused before
// anything is read, with ErrInvalidParameter and a message that names what is
// wrong (the web maps it to 400).
func TestCountLogsInvalidOptions(t *testing.T) {
	many := make([]Pattern, MaxPatterns+1)
	for i := range many {
		many[i] = Literal(strings.Repeat("x", i+1))
	}
	for _, tc := range []struct {
		name string
		opts CountOptions
		want []string
	}{
		{"bad regexp", CountOptions{Patterns: []Pattern{Regexp(`consumer (\d+`)}}, []string{`consumer (\d+`, "missing closing )"}},
		{"bad pair regexp", CountOptions{Pairs: []Pair{{Name: "p", Start: Regexp(`a[`), Close: Literal("b")}}}, []string{`a[`, "missing closing ]"}},
		{"bad key", CountOptions{Key: `(?P<x`}, []string{`(?P<x`, "key regexp"}},
		{"key without group", CountOptions{Key: `consumer \S+`, Pairs: []Pair{{Name: "p", Start: Literal("a"), Close: Literal("b")}}}, []string{"no capture group"}},
		{"newline", CountOptions{Patterns: []Pattern{Literal("a\nb")}}, []string{"line break"}},
		{"too long", CountOptions{Patterns: []Pattern{Literal(strings.Repeat("y", maxPatternBytes+1))}}, []string{"limit is 1024"}},
		{"too many", CountOptions{Patterns: many}, []string{"more than 64 patterns"}},
		{"unknown preset", CountOptions{Preset: "nope"}, []string{`"nope"`, "samza-2785"}},
		{"unnamed pair", CountOptions{Pairs: []Pair{{Start: Literal("a"), Close: Literal("b")}}}, []string{"no name"}},
		{"twin pairs", CountOptions{Pairs: []Pair{{Name: "p", Start: Literal("a"), Close: Literal("b")}, {Name: "p", Start: Literal("c"), Close: Literal("d")}}}, []string{`"p"`}},
		{"bucket", CountOptions{Bucket: time.Microsecond}, []string{"1ms"}},
	} {
		_, err := Count(context.Background(), tc.opts, Input{Name: "x", Reader: failingReader{t}})
		if !errors.Is(err, analyze.ErrInvalidParameter) {
			t.Errorf("%s: err %v, want ErrInvalidParameter", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
		if err2 := ValidateCountOptions(tc.opts); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: ValidateCountOptions says %v, Count %v", tc.name, err2, err)
		}
	}
}

// failingReader fails the test when anything reads it.
type failingReader struct{ t *testing.T }

func (f failingReader) Read([]byte) (int, error) {
	f.t.Error("input read although the options are invalid")
	return 0, io.EOF
}

// TestParseLogPair checks the command-line pair syntax.
func TestParseLogPair(t *testing.T) {
	p, err := ParsePair(`consumers=Starting the checkpoint SystemConsumer,Stopping system consumer`, false)
	if err != nil || p.Name != "consumers" || p.Start.Text != "Starting the checkpoint SystemConsumer" || p.Close.Text != "Stopping system consumer" || p.Start.Regexp {
		t.Errorf("plain pair: %+v, %v", p, err)
	}
	p, err = ParsePair(`x=a\,b,c\\d`, true)
	if err != nil || p.Start.Text != "a,b" || p.Close.Text != `c\d` || !p.Close.Regexp {
		t.Errorf("escaped pair: %+v, %v", p, err)
	}
	for _, bad := range []string{"nameonly", "=a,b", "x=a", "x=a,b,c", "x=,b", "x=a,"} {
		if _, err := ParsePair(bad, false); !errors.Is(err, analyze.ErrInvalidParameter) {
			t.Errorf("%q: err %v, want ErrInvalidParameter", bad, err)
		}
	}
}

// TestCountLogsBadInputs checks broken and oversized inputs: clear errors that
// name the input, never a panic; an empty input is zero lines.
func TestCountLogsBadInputs(t *testing.T) {
	defer goleak.VerifyNone(t)
	log := bytes.Repeat([]byte("2024-01-01 00:00:00.000 start consumer\n"), 5000)
	gz := compressBytes(t, "gzip", log)
	zs := compressBytes(t, "zstd", log)
	opts := CountOptions{Patterns: []Pattern{Literal("start")}}
	for _, tc := range []struct {
		name string
		in   []byte
		opts CountOptions
		want error
	}{
		{"truncated gzip", gz[:len(gz)/2], opts, analyze.ErrMalformed},
		{"truncated zstd", zs[:len(zs)/2], opts, analyze.ErrMalformed},
		{"gzip garbage", append([]byte{0x1f, 0x8b, 8, 0}, bytes.Repeat([]byte{0xff}, 100)...), opts, analyze.ErrMalformed},
		{"too large plain", log, CountOptions{MaxInputBytes: 1000}, analyze.ErrTooLarge},
		{"too large gzip", gz, CountOptions{MaxInputBytes: 1000}, analyze.ErrTooLarge},
		{"gzip in gzip", compressBytes(t, "gzip", gz), opts, analyze.ErrUnsupportedKind},
	} {
		for _, stream := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(tc.in)
			if stream {
				r = streamOnly{r}
			}
			_, err := Count(context.Background(), tc.opts, Input{Name: "upload.log", Reader: r})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "upload.log") {
				t.Errorf("%s (stream %v): err %v, want %v naming upload.log", tc.name, stream, err, tc.want)
			}
		}
	}
	for _, stream := range []bool{false, true} {
		var r io.Reader = bytes.NewReader(nil)
		if stream {
			r = streamOnly{r}
		}
		rep, err := Count(context.Background(), opts, Input{Name: "empty", Reader: r})
		if err != nil || rep.Lines != 0 || rep.Patterns[0].Count != 0 || len(rep.Files) != 1 {
			t.Errorf("empty (stream %v): %+v, %v", stream, rep, err)
		}
	}
	// The same log compressed counts the same as plain.
	for _, in := range [][]byte{log, gz, zs} {
		rep, err := Count(context.Background(), opts, Input{Name: "x", Reader: bytes.NewReader(in)})
		if err != nil || rep.Lines != 5000 || rep.Patterns[0].Count != 5000 || rep.Bytes != int64(len(log)) {
			t.Errorf("%d-byte input: %+v, %v; want 5000 lines of %d bytes", len(in), rep, err, len(log))
		}
	}
}

// slowReader serves a large log slowly, so a count can be cancelled midway.
type slowReader struct {
	n    int
	line []byte
}

func (s *slowReader) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	s.n--
	time.Sleep(time.Millisecond)
	return copy(p, bytes.Repeat(s.line, len(p)/len(s.line)+1)), nil
}

func (s *slowReader) ReadAt(p []byte, off int64) (int, error) {
	time.Sleep(time.Millisecond)
	for i := range p {
		p[i] = s.line[(off+int64(i))%int64(len(s.line))]
	}
	if off+int64(len(p)) > s.Size() {
		return int(max(0, s.Size()-off)), io.EOF
	}
	return len(p), nil
}

func (s *slowReader) Size() int64 { return 1 << 34 }

// TestCountLogsCancel checks that cancelling a count of a huge input stops it
// promptly with the context's error and leaves no goroutine behind, for the
// parallel and the streaming paths.
func TestCountLogsCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	line := []byte("2024-01-01 00:00:00.000 consumer k=1 started\n")
	for _, stream := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		var r io.Reader = &slowReader{n: 1 << 30, line: line}
		if stream {
			r = streamOnly{r}
		}
		opts := CountOptions{Key: `k=(\d+)`, Pairs: []Pair{{Name: "p", Start: Literal("started"), Close: Literal("stopped")}},
			partSize: 1 << 16, blockSize: 1 << 12}
		start := time.Now()
		_, err := Count(ctx, opts, Input{Name: "huge", Reader: r})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stream %v: err %v, want the deadline", stream, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("stream %v: cancel took %v", stream, d)
		}
	}
}

// errAfterReader fails with a read error after some bytes.
type errAfterReader struct {
	left int
	err  error
}

func (e *errAfterReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, e.err
	}
	n := min(len(p), e.left)
	for i := range p[:n] {
		p[i] = "ab\n"[i%3]
	}
	e.left -= n
	return n, nil
}

func (e *errAfterReader) ReadAt(p []byte, off int64) (int, error) {
	if off > 300000 {
		return 0, e.err
	}
	for i := range p {
		p[i] = "ab\n"[(off+int64(i))%3]
	}
	return len(p), nil
}

func (e *errAfterReader) Size() int64 { return 1 << 22 }

// TestCountLogsReadError checks that a failing reader's error comes back
// wrapped with the input's name, on both paths, without leaking goroutines.
func TestCountLogsReadError(t *testing.T) {
	defer goleak.VerifyNone(t)
	boom := errors.New("disk on fire")
	for _, stream := range []bool{false, true} {
		var r io.Reader = &errAfterReader{left: 300000, err: boom}
		if stream {
			r = streamOnly{r}
		}
		_, err := Count(context.Background(), CountOptions{Patterns: []Pattern{Literal("a")}, partSize: 1 << 16},
			Input{Name: "broken.log", Reader: r})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "broken.log") {
			t.Errorf("stream %v: err %v, want the read error naming broken.log", stream, err)
		}
	}
}
