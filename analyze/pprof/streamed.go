package pprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/leakui/leakui/analyze"
)

// streamedSamples are the samples of a profile.proto file read for reports that
// walk them once or a few times (`leakui top`): the tables (strings,
// functions, locations) are held in g, and the samples are decompressed and
// decoded again from the file for each walk, one at a time, never stored. Its
// memory is the tables' and one field's, not the decompressed file's or the
// samples'; a walk costs a decompression.
type streamedSamples struct {
	open   func() (io.ReadCloser, error)
	limit  int64
	budget *analyze.Budget
	d      *protoDecoder
	// g holds the locations and names; no samples.
	g *callGraph
	// samples and size are what the tables' pass counted: the walks check them,
	// so that a file changed between two passes is an error, not a mixed report.
	samples int
	size    int64
	// totals are the sums of the absolute values per sample type, known after
	// the first walk (walked).
	totals []int64
	walked bool
}

// errNotStreamable is openStreamed's answer for a profile it does not read:
// not a profile.proto (a legacy format), or one whose drop_frames needs the
// reference parser. Open decodes those into memory.
var errNotStreamable = errors.New("the profile is not a profile.proto that can be streamed")

// openStreamed reads the tables of the profile that open opens (a file, opened
// again for each walk; gzipped or not), decompressed within limit bytes and
// within budget (nil: unbounded), charged as loadWithin charges it: the tables
// as they are decoded (their census cost, and every array the raw tables grow
// into), a field longer than the read buffer before it is read, a field that
// could decode to more than the budget has left refused at its first bytes.
// Close gives the budget back.
func openStreamed(open func() (io.ReadCloser, error), limit int64, budget *analyze.Budget) (*Profile, error) {
	if limit <= 0 {
		limit = analyze.DefaultMaxDecompressed
	}
	sp := &streamedSamples{open: open, limit: limit, budget: budget.Child(budget.Remaining())}
	if err := sp.readTables(); err != nil {
		sp.close()
		return nil, err
	}
	return &Profile{stream: sp, meta: sp.d.meta, Format: "profile.proto", reopen: open, limit: limit, budget: budget}, nil
}

// close gives back what the samples charged to their budget.
func (sp *streamedSamples) close() { sp.budget.Release() }

// stream opens the file and decompresses it.
func (sp *streamedSamples) stream() (*protoStream, func(), error) {
	f, err := sp.open()
	if err != nil {
		return nil, nil, err
	}
	rc, _, err := analyze.Decompress(f, sp.limit)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pre := newPrefetcher(rc)
	s := &protoStream{r: bufio.NewReaderSize(pre, streamBufferSize), budget: sp.budget}
	return s, func() { pre.Close(); rc.Close(); f.Close() }, nil
}

// readTables is the first pass: the tables, the samples counted.
func (sp *streamedSamples) readTables() error {
	if err := sp.budget.Charge(streamBufferSize + streamOverhead); err != nil {
		return err
	}
	s, done, err := sp.stream()
	if err != nil {
		return err
	}
	defer done()
	head, err := s.r.Peek(analyze.SniffSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if len(head) == 0 {
		return analyze.ErrEmpty
	}
	if analyze.DetectKind(head).Format != "profile.proto" {
		return errNotStreamable
	}
	d := newProtoDecoder(&protoCensus{})
	d.budget = sp.budget
	var census protoCensus
	var charged int64
	for {
		field, wire, v, msg, err := s.next()
		if errors.Is(err, errStreamEnd) {
			break
		}
		if err != nil {
			return err
		}
		if field != fieldProfileSample {
			if err := census.add(field, wire, msg); err != nil {
				return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
			}
		}
		if c := census.cost(); c-charged >= censusChargeStep {
			if err := sp.budget.Charge(c - charged); err != nil {
				return err
			}
			charged = c
		}
		if err := d.tableField(field, wire, v, msg); err != nil {
			if errors.Is(err, analyze.ErrTooLarge) || errors.Is(err, analyze.ErrBusy) {
				return err
			}
			return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
		}
	}
	if err := sp.budget.Charge(census.cost() - charged); err != nil {
		return err
	}
	b, err := d.resolve(0, 0, int(census.lines))
	if err != nil {
		return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
	}
	if d.meta.dropFrames != "" {
		return errNotStreamable
	}
	sp.d, sp.g, sp.samples, sp.size = d, b.g, d.samples, s.pos
	return nil
}

// walk is a pass over the samples: fn gets every sample's location indexes
// (leaf first) and values, which it must not keep. The first walk also checks
// and keeps the totals.
func (sp *streamedSamples) walk(fn func(stack []int32, values []int64)) error {
	s, done, err := sp.stream()
	if err != nil {
		return err
	}
	defer done()
	var (
		stack   []int32
		values  = make([]int64, 0, sp.d.nTypes)
		totals  = make([]uint64, sp.d.nTypes)
		n       int
		charged int
	)
	for {
		field, _, _, msg, err := s.next()
		if errors.Is(err, errStreamEnd) {
			break
		}
		if err != nil {
			return err
		}
		if field != fieldProfileSample {
			continue
		}
		if n++; n > sp.samples {
			break
		}
		if stack, values, err = sp.d.sample(msg, stack, values); err != nil {
			return fmt.Errorf("%w: %v", analyze.ErrMalformed, err)
		}
		if cap(stack) > charged {
			if err := sp.budget.Charge(4 * int64(cap(stack)-charged)); err != nil {
				return err
			}
			charged = cap(stack)
		}
		if !sp.walked {
			for j, v := range values {
				if !addAbs(&totals[j], v) {
					return errTotalTooLarge(sp.d.meta, j)
				}
			}
		}
		fn(stack, values)
	}
	if n != sp.samples || s.pos != sp.size {
		return fmt.Errorf("%w: the profile changed while it was read (its samples are read again for each pass)", analyze.ErrMalformed)
	}
	if !sp.walked {
		sp.totals = make([]int64, len(totals))
		for j, t := range totals {
			sp.totals[j] = int64(t)
		}
		sp.walked = true
	}
	return nil
}

// ensureTotals walks the samples once when no walk has counted the totals.
func (sp *streamedSamples) ensureTotals() error {
	if sp.walked {
		return nil
	}
	return sp.walk(func([]int32, []int64) {})
}

// addAbs adds |v| to *total, reporting false when the sum leaves int64.
func addAbs(total *uint64, v int64) bool {
	a := uint64(v)
	if v < 0 {
		a = uint64(-v) // MinInt64 stays 1<<63, which is out of range below
	}
	*total += a
	return a <= math.MaxInt64 && *total <= math.MaxInt64
}
