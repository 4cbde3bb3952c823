package analyze

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestCountLogsInvalidOptions checks that every bad option is refused before
// anything is read, with ErrInvalidParameter and a message that names what is
// wrong (the web maps it to 400).
func TestCountLogsInvalidOptions(t *testing.T) {
	many := make([]LogPattern, LogMaxPatterns+1)
	for i := range many {
		many[i] = LogLiteral(strings.Repeat("x", i+1))
	}
	for _, tc := range []struct {
		name string
		opts LogCountOptions
		want []string
	}{
		{"bad regexp", LogCountOptions{Patterns: []LogPattern{LogRegexp(`consumer (\d+`)}}, []string{`consumer (\d+`, "missing closing )"}},
		{"bad pair regexp", LogCountOptions{Pairs: []LogPair{{Name: "p", Start: LogRegexp(`a[`), Close: LogLiteral("b")}}}, []string{`a[`, "missing closing ]"}},
		{"bad key", LogCountOptions{Key: `(?P<x`}, []string{`(?P<x`, "key regexp"}},
		{"key without group", LogCountOptions{Key: `consumer \S+`, Pairs: []LogPair{{Name: "p", Start: LogLiteral("a"), Close: LogLiteral("b")}}}, []string{"no capture group"}},
		{"newline", LogCountOptions{Patterns: []LogPattern{LogLiteral("a\nb")}}, []string{"line break"}},
		{"too long", LogCountOptions{Patterns: []LogPattern{LogLiteral(strings.Repeat("y", LogMaxPatternBytes+1))}}, []string{"limit is 1024"}},
		{"too many", LogCountOptions{Patterns: many}, []string{"more than 64 patterns"}},
		{"unknown preset", LogCountOptions{Preset: "nope"}, []string{`"nope"`, "samza-2785"}},
		{"unnamed pair", LogCountOptions{Pairs: []LogPair{{Start: LogLiteral("a"), Close: LogLiteral("b")}}}, []string{"no name"}},
		{"twin pairs", LogCountOptions{Pairs: []LogPair{{Name: "p", Start: LogLiteral("a"), Close: LogLiteral("b")}, {Name: "p", Start: LogLiteral("c"), Close: LogLiteral("d")}}}, []string{`"p"`}},
		{"bucket", LogCountOptions{Bucket: time.Microsecond}, []string{"1ms"}},
	} {
		_, err := CountLogs(context.Background(), tc.opts, LogInput{Name: "x", Reader: failingReader{t}})
		if !errors.Is(err, ErrInvalidParameter) {
			t.Errorf("%s: err %v, want ErrInvalidParameter", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
		if err2 := ValidateLogCountOptions(tc.opts); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: ValidateLogCountOptions says %v, CountLogs %v", tc.name, err2, err)
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
	p, err := ParseLogPair(`consumers=Starting the checkpoint SystemConsumer,Stopping system consumer`, false)
	if err != nil || p.Name != "consumers" || p.Start.Text != "Starting the checkpoint SystemConsumer" || p.Close.Text != "Stopping system consumer" || p.Start.Regexp {
		t.Errorf("plain pair: %+v, %v", p, err)
	}
	p, err = ParseLogPair(`x=a\,b,c\\d`, true)
	if err != nil || p.Start.Text != "a,b" || p.Close.Text != `c\d` || !p.Close.Regexp {
		t.Errorf("escaped pair: %+v, %v", p, err)
	}
	for _, bad := range []string{"nameonly", "=a,b", "x=a", "x=a,b,c", "x=,b", "x=a,"} {
		if _, err := ParseLogPair(bad, false); !errors.Is(err, ErrInvalidParameter) {
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
	opts := LogCountOptions{Patterns: []LogPattern{LogLiteral("start")}}
	for _, tc := range []struct {
		name string
		in   []byte
		opts LogCountOptions
		want error
	}{
		{"truncated gzip", gz[:len(gz)/2], opts, ErrMalformed},
		{"truncated zstd", zs[:len(zs)/2], opts, ErrMalformed},
		{"gzip garbage", append([]byte{0x1f, 0x8b, 8, 0}, bytes.Repeat([]byte{0xff}, 100)...), opts, ErrMalformed},
		{"too large plain", log, LogCountOptions{MaxInputBytes: 1000}, ErrTooLarge},
		{"too large gzip", gz, LogCountOptions{MaxInputBytes: 1000}, ErrTooLarge},
		{"gzip in gzip", compressBytes(t, "gzip", gz), opts, ErrUnsupportedKind},
	} {
		for _, stream := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(tc.in)
			if stream {
				r = streamOnly{r}
			}
			_, err := CountLogs(context.Background(), tc.opts, LogInput{Name: "upload.log", Reader: r})
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
		rep, err := CountLogs(context.Background(), opts, LogInput{Name: "empty", Reader: r})
		if err != nil || rep.Lines != 0 || rep.Patterns[0].Count != 0 || len(rep.Files) != 1 {
			t.Errorf("empty (stream %v): %+v, %v", stream, rep, err)
		}
	}
	// The same log compressed counts the same as plain.
	for _, in := range [][]byte{log, gz, zs} {
		rep, err := CountLogs(context.Background(), opts, LogInput{Name: "x", Reader: bytes.NewReader(in)})
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
		opts := LogCountOptions{Key: `k=(\d+)`, Pairs: []LogPair{{Name: "p", Start: LogLiteral("started"), Close: LogLiteral("stopped")}},
			partSize: 1 << 16, blockSize: 1 << 12}
		start := time.Now()
		_, err := CountLogs(ctx, opts, LogInput{Name: "huge", Reader: r})
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
		_, err := CountLogs(context.Background(), LogCountOptions{Patterns: []LogPattern{LogLiteral("a")}, partSize: 1 << 16},
			LogInput{Name: "broken.log", Reader: r})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "broken.log") {
			t.Errorf("stream %v: err %v, want the read error naming broken.log", stream, err)
		}
	}
}
