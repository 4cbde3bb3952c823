package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// grepCount runs the real GNU grep -c on a file (-a: NUL bytes do not make it
// a "binary file"; -F or -E as the pattern says; LC_ALL=C: bytes, not runes)
// and returns its count. grep exits 1 when nothing matches, which is a count
// of 0, not an error.
func grepCount(t testing.TB, p Pattern, path string) int64 {
	t.Helper()
	return greptest.Count(t, p.Text, p.Regexp, path)
}

// grepLines is grep's own line count: every line matches the empty pattern.
func grepLines(t testing.TB, path string) int64 {
	return grepCount(t, Literal(""), path)
}

// streamOnly hides io.ReaderAt so that Count streams the input.
type streamOnly struct{ r io.Reader }

func (s streamOnly) Read(p []byte) (int, error) { return s.r.Read(p) }

// countVariant is one way of reading the same input; every one must give
// grep's counts.
type countVariant struct {
	name                         string
	block, part, maxLine, worker int
	stream                       bool
	compress                     string // "", "gzip" or "zstd"
}

var countVariants = []countVariant{
	{name: "default"},
	{name: "stream", stream: true},
	{name: "tiny parts", block: 64, part: 100, worker: 3},
	{name: "odd blocks", block: 61, part: 997, maxLine: 61, worker: 2},
	{name: "one worker small", block: 4096, part: 8192, worker: 1},
	{name: "stream tiny", block: 33, maxLine: 40, stream: true},
	{name: "gzip", compress: "gzip", block: 1000},
	{name: "zstd", compress: "zstd"},
}

// countFile runs Count on path the way v says.
func countFile(t testing.TB, v countVariant, path string, opts CountOptions) *Report {
	t.Helper()
	opts.blockSize, opts.partSize, opts.maxLine, opts.Workers = v.block, v.part, v.maxLine, v.worker
	var in io.Reader
	switch v.compress {
	case "":
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in = f
	default:
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.NewReader(compressBytes(t, v.compress, raw))
	}
	if v.stream {
		in = streamOnly{in}
	}
	rep, err := Count(context.Background(), opts, Input{Name: filepath.Base(path), Reader: in})
	if err != nil {
		t.Fatalf("%s (%s): %v", path, v.name, err)
	}
	return rep
}

func compressBytes(t testing.TB, kind string, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch kind {
	case "gzip":
		zw := gzip.NewWriter(&buf)
		zw.Write(raw)
		zw.Close()
	case "zstd":
		zw, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(raw)
		zw.Close()
	}
	return buf.Bytes()
}

// checkAgainstGrep counts the patterns in path every way and compares each
// count, and the line count, with grep's.
func checkAgainstGrep(t *testing.T, path string, patterns []Pattern, variants []countVariant) {
	t.Helper()
	want := make([]int64, len(patterns))
	for i, p := range patterns {
		want[i] = grepCount(t, p, path)
	}
	wantLines := grepLines(t, path)
	for _, v := range variants {
		rep := countFile(t, v, path, CountOptions{Patterns: patterns})
		if rep.Lines != wantLines {
			t.Errorf("%s (%s): %d lines, grep -c '' says %d", filepath.Base(path), v.name, rep.Lines, wantLines)
		}
		if len(rep.Patterns) != len(patterns) {
			t.Fatalf("%s: %d patterns in the report, want %d", path, len(rep.Patterns), len(patterns))
		}
		for i, p := range patterns {
			if got := rep.Patterns[i].Count; got != want[i] {
				t.Errorf("%s (%s): %v counted %d, grep says %d", filepath.Base(path), v.name, p, got, want[i])
			}
		}
	}
}

// TestCountLogsFixturesMatchGrep counts real logs of every layout in the
// shared fixtures and compares each count with grep -c.
func TestCountLogsFixturesMatchGrep(t *testing.T) {
	patterns := []Pattern{
		Literal("INFO"), Literal("WARN"), Literal("ERROR"), Literal("Exception"),
		Literal(" - "), Literal("kafka"), Literal("0"), Literal("e"),
		Literal("Adding new member"), Literal("removing member"), Literal("PacketResponder"),
		Literal("Starting"), Literal("Stopping"), Literal("]: "),
		Regexp(`[0-9]{4}-[0-9]{2}-[0-9]{2}`), Regexp(`(WARN|ERROR)`), Regexp(`^\[`),
		Regexp(`\)$`), Regexp(`blk_-?[0-9]+`), Regexp(`INFO.*(Coordinator|Log)`),
		Regexp(`member consumer-[0-9]+-[0-9a-f-]+`), Regexp(`[A-Z][a-z]+Exception`),
		Regexp(`^$`), Regexp(`size [0-9]+$`),
	}
	variants := []countVariant{countVariants[0], countVariants[1], countVariants[2], countVariants[6]}
	for _, path := range fixtures.Glob(t, "logs", "*") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkAgainstGrep(t, path, patterns, variants)
		})
	}
}

// edgeCases builds small logs with the shapes that break line counters.
func edgeCases() map[string][]byte {
	long := bytes.Repeat([]byte("x"), 1<<20+1000) // over 1 MiB
	cases := map[string][]byte{
		"crlf":            []byte("start a\r\nclose a\r\n\r\nstart b\r\nstart a\r\n"),
		"no final eol":    []byte("start a\nclose a\nstart b"),
		"empty lines":     []byte("\n\nstart\n\n\nclose\n\n"),
		"only newlines":   []byte("\n\n\n"),
		"no newline":      []byte("start close start"),
		"empty":           {},
		"nul bytes":       []byte("start\x00a\n\x00\x00close\x00\nstart\x00\x00\n\x00\n"),
		"invalid utf8":    []byte("start \xff\xfe a\n\xc3\x28 close\nstart \xed\xa0\x80\n\xe2\x82 close\xff\n"),
		"twice on a line": []byte("start start start\nclose close\nstartclose\n"),
		"overlapping":     []byte("ababab\nabab\naba\nstartart\ntartstar\n"),
		"long lines": append(append(append(append([]byte("start\n"), long...), []byte("start in the middle")...),
			append(long, '\n')...), append(append([]byte("close "), long...), []byte(" start\n"+string(long)+"close")...)...),
	}
	// A pattern at every offset around the 4 KiB and 64-byte block edges.
	var edge bytes.Buffer
	for i := 0; edge.Len() < 20000; i++ {
		edge.WriteString(strings.Repeat("y", i%97))
		edge.WriteString("start-")
		if i%5 == 0 {
			edge.WriteString("close")
		}
		edge.WriteString(strings.Repeat("z", i%13))
		edge.WriteByte('\n')
	}
	cases["block boundaries"] = edge.Bytes()
	return cases
}

// TestCountLogsEdgeCasesMatchGrep writes each edge case to a file and compares
// every count with grep -c -a, for every way of reading it.
func TestCountLogsEdgeCasesMatchGrep(t *testing.T) {
	defer goleak.VerifyNone(t)
	patterns := []Pattern{
		Literal("start"), Literal("close"), Literal("start-close"), Literal("abab"),
		Literal("aba"), Literal("bab"), Literal("tart"), Literal("star"), Literal("a"),
		Literal("\x00"), Literal("\xff"), Literal("\r"), Literal("x"), Literal(""),
		Literal("in the middle"), Literal("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx start"),
		Regexp(`^$`), Regexp(`^start`), Regexp(`close$`), Regexp(`(ab)+`),
		Regexp(`st.rt`), Regexp(`z{5}$`), Regexp(`start.*close`), Regexp(`^[a-z-]+$`),
	}
	dir := t.TempDir()
	for name, content := range edgeCases() {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".log")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		variants, pats := countVariants, patterns
		if name == "long lines" {
			// Lines over 1 MiB through tiny windows take long (with -race
			// most of all); the window edges are TestCountLogsLongLineWindows'
			// business. Here: the usual paths, and the streaming mode for
			// lines past the buffer with 64 KiB windows.
			variants = []countVariant{countVariants[0], countVariants[1], countVariants[6],
				{name: "long-line mode", block: 64 << 10, maxLine: 64 << 10, part: 1 << 20, worker: 2}}
			pats = []Pattern{Literal("start"), Literal("close"), Literal("in the middle"), Literal(""),
				Literal("x"), Regexp(`^start`), Regexp(`close$`), Regexp(`st.rt`), Regexp(`e s`)}
		}
		t.Run(name, func(t *testing.T) {
			checkAgainstGrep(t, path, pats, variants)
		})
	}
}

// TestCountLogsLongLineWindows puts literals across every window edge of a
// line far longer than the line buffer, so they are found only by the
// overlapping-window search, and compares with grep.
func TestCountLogsLongLineWindows(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 40; i++ {
		b.WriteString(strings.Repeat("-", 50+i*7))
		b.WriteString("needle")
		b.WriteString(strings.Repeat(".", i*3))
		b.WriteString("thread")
	}
	b.WriteString("\nshort needle\n")
	b.WriteString(strings.Repeat("=", 5000) + "tail-end\n")
	path := filepath.Join(t.TempDir(), "long.log")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	patterns := []Pattern{Literal("needle"), Literal("thread"), Literal("tail-end"),
		Literal("needle" + strings.Repeat(".", 6) + "thread"), Literal("=tail")}
	var variants []countVariant
	for _, block := range []int{16, 17, 31, 64, 100} {
		variants = append(variants,
			countVariant{name: fmt.Sprintf("block %d", block), block: block, maxLine: block, part: 300, worker: 2},
			countVariant{name: fmt.Sprintf("stream block %d", block), block: block, maxLine: 2 * block, stream: true})
	}
	checkAgainstGrep(t, path, patterns, variants)
	rep := countFile(t, variants[0], path, CountOptions{Patterns: patterns})
	if rep.LongLines != 2 {
		t.Errorf("long lines: %d, want 2 (the needle line and the tail-end line)", rep.LongLines)
	}
}
