package logs

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logline"

	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Input is one log to count: a name for the report and its content, plain,
// gzip or zstd (detected from the bytes). When Reader is also an io.ReaderAt
// of known size (an *os.File of a regular file, an *io.SectionReader, a
// *bytes.Reader) and the content is not compressed, the input is split at
// line boundaries and scanned by several goroutines; otherwise it is streamed.
type Input struct {
	Name   string
	Reader io.Reader
}

// Count counts the patterns, pairs and keys of opts in the inputs, in one
// pass over each, and returns the report. Counts are those of grep -c (grep -cE
// for regexps) on each input, summed; key tables and timestamps follow the
// inputs in the order given (a key started in one file may be closed in the
// next). Invalid options fail with ErrInvalidParameter before anything is
// read; a broken compressed input fails with ErrMalformed, one larger than
// opts.MaxInputBytes with ErrTooLarge, both naming the input. An empty input
// counts as zero lines.
func Count(ctx context.Context, opts CountOptions, inputs ...Input) (*Report, error) {
	plan, err := newLogPlan(opts)
	if err != nil {
		return nil, err
	}
	if opts.Budget != nil {
		bound := plan.memoryBound(opts)
		if err := opts.Budget.Charge(bound); err != nil {
			return nil, fmt.Errorf("%w (a count of these options may hold %s)", err, analyze.FormatBytes(bound))
		}
		defer opts.Budget.Uncharge(bound)
	}
	c := &counter{opts: opts, plan: plan, merge: newLogMerger(plan, len(inputs))}
	for _, in := range inputs {
		c.total += inputSize(in.Reader)
	}
	for i, in := range inputs {
		if err := c.count(ctx, i, in); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
	}
	return c.merge.report(inputs), nil
}

// counter counts the inputs of one Count call, one after the other.
type counter struct {
	opts  CountOptions
	plan  *countPlan
	merge *merger
	total int64 // sum of the input sizes, for progress
	done  int64 // input bytes consumed before the current input
}

// count counts one input into the merger.
func (c *counter) count(ctx context.Context, file int, in Input) error {
	c.merge.startFile(file)
	if ra, size, ok := randomAccess(in.Reader); ok {
		head := make([]byte, min(size, sampleSize))
		if _, err := ra.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		// UTF-16 is counted as the UTF-8 Decompress makes of it, which only the
		// stream reads.
		if analyze.DetectCompression(head) == analyze.CompressionNone && analyze.DetectEncoding(head) == "" {
			if c.opts.MaxInputBytes > 0 && size > c.opts.MaxInputBytes {
				return fmt.Errorf("%w: %s, more than the limit of %s", analyze.ErrTooLarge, analyze.FormatBytes(size), analyze.FormatBytes(c.opts.MaxInputBytes))
			}
			c.merge.describe(file, head, analyze.CompressionNone)
			err := c.countParallel(ctx, file, ra, size, head)
			c.done += size
			c.progress(file, 0)
			return err
		}
		in.Reader = io.NewSectionReader(ra, 0, size)
	}
	return c.countStream(ctx, file, in.Reader)
}

// countStream counts an input read from start to end by one scanner.
func (c *counter) countStream(ctx context.Context, file int, r io.Reader) error {
	raw := &countingReader{r: r}
	limit := c.opts.MaxInputBytes
	if limit <= 0 {
		limit = 1 << 62
	}
	rc, comp, err := analyze.Decompress(raw, limit)
	if errors.Is(err, analyze.ErrEmpty) {
		c.merge.describe(file, nil, analyze.CompressionNone)
		c.merge.add(c.plan.newPart(0, nil))
		return nil
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	// Decompression runs ahead on a core of its own. (A plain stream is not
	// worth it: the hand-over costs more than reading does.)
	var stream io.Reader = rc
	if comp != analyze.CompressionNone && c.opts.workers() > 1 {
		pf := newLogPrefetch(rc, 1<<20, 2)
		defer pf.Close() // before rc.Close: the goroutine reads rc
		stream = pf
	}
	br := bufio.NewReaderSize(stream, sampleSize)
	head, err := br.Peek(sampleSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	c.merge.describe(file, head, comp)
	c.merge.files[file].Encoding = analyze.EncodingOf(rc)
	sc := c.newScanner(head)
	part := c.plan.newPart(0, c.merge.bucketsSnapshot())
	last := int64(0)
	err = sc.scan(ctx, br, part, true, func(int64) {
		if n := raw.n.Load(); n-last >= 4<<20 {
			last = n
			c.progress(file, n)
		}
	})
	c.merge.add(part)
	c.done += raw.n.Load()
	c.progress(file, 0)
	return err
}

// newScanner returns a scanner whose matchers are tuned to an input's head.
func (c *counter) newScanner(head []byte) *scanner {
	sc := newLogScanner(c.plan, c.opts.blockSize, c.opts.maxLine)
	sc.ms = c.plan.matchers(head)
	sc.times = c.plan.times && hasTimes(head)
	return sc
}

// progress reports the bytes consumed: those of earlier inputs plus n.
func (c *counter) progress(file int, n int64) {
	if c.opts.Progress != nil {
		c.opts.Progress(Progress{File: file, Done: c.done + n, Total: c.total})
	}
}

// matchers compiles the plan's patterns tuned to an input's head. The plan was
// validated, so compiling cannot fail.
func (pl *countPlan) matchers(head []byte) []*matcher {
	ranks := newLogByteRanks(head)
	ms := make([]*matcher, len(pl.patterns))
	for i, p := range pl.patterns {
		m, err := compileLogPattern(p, ranks, head)
		if err != nil {
			panic(fmt.Sprintf("analyze: validated pattern %q does not compile: %v", p.Text, err))
		}
		ms[i] = m
	}
	return ms
}

// hasTimes reports whether an input's head has a timestamped line; inputs
// without are not searched for timestamps at all.
func hasTimes(head []byte) bool {
	for from, n := 0, 0; from < len(head) && n < 1000; n++ {
		le := lineEnd(head, from)
		if _, ok := logline.Time(head[from:le]); ok {
			return true
		}
		from = le + 1
	}
	return false
}

// randomAccess returns r as an io.ReaderAt of known size, from r's current
// offset, when it is one.
func randomAccess(r io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	switch v := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
		off := int64(0)
		if sk, ok := r.(io.Seeker); ok {
			if off, err = sk.Seek(0, io.SeekCurrent); err != nil {
				return nil, 0, false
			}
		}
		if off > fi.Size() {
			off = fi.Size()
		}
		return io.NewSectionReader(ra, off, fi.Size()-off), fi.Size() - off, true
	case *io.SectionReader:
		return v, v.Size(), true
	case interface{ Size() int64 }:
		return ra, v.Size(), true
	}
	return nil, 0, false
}

// inputSize returns the raw size of an input when it can be known cheaply.
func inputSize(r io.Reader) int64 {
	if _, size, ok := randomAccess(r); ok {
		return size
	}
	return 0
}

// countingReader counts the raw bytes read through it (from the read-ahead
// goroutine; the count is read by the scanner's).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// FormatDuration formats a bucket width the way the -bucket flag takes it: 1m
// rather than 1m0s, 10d for whole days.
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	for _, suffix := range []string{"m0s", "h0m"} {
		if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
			s = s[:len(s)-len(suffix)+1]
		}
	}
	return s
}

// ParseDuration parses a bucket width: a Go duration (30s, 1m, 1h30m) or
// whole days (7d).
func ParseDuration(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseInt(n, 10, 64)
		if err != nil || days <= 0 || days > 100000 {
			return 0, fmt.Errorf("%w: bucket width %q", analyze.ErrInvalidParameter, s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: bucket width %q: want a positive duration such as 30s, 1m or 7d", analyze.ErrInvalidParameter, s)
	}
	return d, nil
}
