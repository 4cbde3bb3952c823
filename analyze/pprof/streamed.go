package pprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/leakui/leakui/analyze"
)

// StreamedProfile is a profile.proto file read for one report that walks its
// samples once or a few times (`leakui top`): its tables (strings, functions,
// locations) are held, and its samples are decompressed and decoded again from
// the file for each walk, one at a time, never stored. Its memory is the
// tables' and one field's, not the decompressed file's or the samples'; a walk
// costs a decompression.
type StreamedProfile struct {
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

// ErrNotStreamable is OpenStreamed's answer for a profile it does not read: not
// a profile.proto (a legacy format), or one whose drop_frames needs the
// reference parser. Load reads those.
var ErrNotStreamable = errors.New("the profile is not a profile.proto that can be streamed")

// OpenStreamed reads the tables of the profile that open opens (a file, opened
// again for each walk; gzipped or not), decompressed within limit bytes and
// within budget (nil: unbounded), charged as Load charges it: the tables as they
// are decoded (their census cost, and every array the raw tables grow into), a field
// longer than the read buffer before it is read, a field that could decode to
// more than the budget has left refused at its first bytes. Close gives the
// budget back.
func OpenStreamed(open func() (io.ReadCloser, error), limit int64, budget *analyze.Budget) (*StreamedProfile, error) {
	if limit <= 0 {
		limit = analyze.DefaultMaxDecompressed
	}
	sp := &StreamedProfile{open: open, limit: limit, budget: budget.Child(budget.Remaining())}
	if err := sp.readTables(); err != nil {
		sp.Close()
		return nil, err
	}
	return sp, nil
}

// Close gives back what the profile charged to its budget.
func (sp *StreamedProfile) Close() { sp.budget.Release() }

// stream opens the file and decompresses it.
func (sp *StreamedProfile) stream() (*protoStream, func(), error) {
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
func (sp *StreamedProfile) readTables() error {
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
		return ErrNotStreamable
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
		return ErrNotStreamable
	}
	sp.d, sp.g, sp.samples, sp.size = d, b.g, d.samples, s.pos
	return nil
}

// walk is a pass over the samples: fn gets every sample's location indexes
// (leaf first) and values, which it must not keep. The first walk also checks
// and keeps the totals.
func (sp *StreamedProfile) walk(fn func(stack []int32, values []int64)) error {
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

// addAbs adds |v| to *total, reporting false when the sum leaves int64.
func addAbs(total *uint64, v int64) bool {
	a := uint64(v)
	if v < 0 {
		a = uint64(-v) // MinInt64 stays 1<<63, which is out of range below
	}
	*total += a
	return a <= math.MaxInt64 && *total <= math.MaxInt64
}

// SampleIndex resolves a sample type name as Profile.SampleIndex does.
func (sp *StreamedProfile) SampleIndex(name string) (int, error) {
	return (&Profile{meta: sp.d.meta}).SampleIndex(name)
}

// IsGoroutineLeakProfile is Profile.IsGoroutineLeakProfile.
func (sp *StreamedProfile) IsGoroutineLeakProfile() bool {
	return (&Profile{meta: sp.d.meta}).IsGoroutineLeakProfile()
}

// TextExact is Profile.TextExact: WriteTopText prints pprof's text from the
// profile itself.
func (sp *StreamedProfile) TextExact() bool { return sp.d.meta.textExact }

// input is the report input of the profile's samples of type si.
func (sp *StreamedProfile) input(si int) *textGraphInput {
	in := &textGraphInput{}
	in.addGraph(sp.g, si, false, map[string]int32{})
	in.parts[0].file = sp
	return in
}

// Top is Profile.Top over one walk of the samples.
func (sp *StreamedProfile) Top(si int) (TopResult, error) {
	if si < 0 || si >= sp.d.nTypes {
		return TopResult{}, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, si)
	}
	r := &textReport{in: sp.input(si)}
	nodes, err := r.graph(nil)
	if err != nil {
		return TopResult{}, err
	}
	rows := make([]TopRow, len(nodes))
	for i, n := range nodes {
		rows[i] = TopRow{Name: n.info.Name, Flat: n.flat, Cum: n.cum}
	}
	sortTopRows(rows)
	st := sp.d.meta.sampleTypes[si]
	res := TopResult{SampleType: st.typ, Unit: st.unit, Total: sp.totals[si], Shown: sp.totals[si], Rows: rows}
	if sp.IsGoroutineLeakProfile() {
		res.ProvenLeaked, res.Leaked = true, res.Total
	}
	return res, nil
}

// WriteTopText is WriteProfileTopText: what `go tool pprof -top` prints. The
// profile must be TextExact.
func (sp *StreamedProfile) WriteTopText(w io.Writer, o TextOptions) error {
	if !sp.TextExact() {
		return fmt.Errorf("%w: this profile's text needs the reference parser (WriteTopText)", analyze.ErrInvalidParameter)
	}
	if o.SampleIndex < 0 || o.SampleIndex >= sp.d.nTypes {
		return fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, o.SampleIndex)
	}
	return writeTextReport(w, sp.d.meta.textHeader(), sp.input(o.SampleIndex), func() int64 { return sp.totals[o.SampleIndex] }, o)
}
