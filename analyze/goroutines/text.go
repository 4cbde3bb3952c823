package goroutines

import (
	"bufio"
	"errors"
	"io"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// goroutineLineBuffer is the longest line the text parser reads whole; the rest of
// a longer line is skipped (no real frame comes close).
const goroutineLineBuffer = 64 << 10

// goroutineMessageLimit caps how much of a crash message is kept.
const goroutineMessageLimit = 64 << 10

// goroutineTextMode is what the text parser is in the middle of.
type goroutineTextMode int

const (
	goroutineModeOutside      goroutineTextMode = iota // between goroutines: noise, headers
	goroutineModeFrames                                // the frames of one goroutine
	goroutineModeAncestors                             // GODEBUG=tracebackancestors sections, skipped
	goroutineModeDebug1                                // one debug=1 record
	goroutineModeCrash                                 // the lines of a panic or fatal error message
	goroutineModeRuntimeStack                          // a fatal error's "runtime stack:"
)

// goroutineTextParser reads a text dump line by line, in one pass, keeping only the
// goroutine being read and the interned stacks: memory grows with the number of
// goroutines and distinct stacks, not with the size of the dump.
type goroutineTextParser struct {
	in     *goroutineInterner
	d      *Dump
	labels map[string]map[string]string // interned label sets by canonical form

	mode goroutineTextMode
	cur  Goroutine // the goroutine or record being read

	frames     []goroutineFrameRef
	pending    goroutineFrameRef // a call line waiting for its location line
	hasPending bool
	createdBy  goroutineFrameRef
	hasCreated bool
	cbPending  bool // the created-by line waits for its location line
	note       bool // the goroutine had a note instead of frames

	message []byte
	runtime []goroutineFrameRef

	meter      analyze.Meter
	framesCap  int // the capacity of frames and runtime charged so far
	runtimeCap int
}

// goroutineCost is what one goroutine costs the budget: its place in
// Dump.Goroutines and its share of what grouping the dump allocates (a group, a
// map entry, an id), each with room for the slices' growth.
var goroutineCost = 2*int64(unsafe.Sizeof(Goroutine{})) + 2*int64(unsafe.Sizeof(Group{})) + 2*64 + 2*8

// goroutineFrameRefCost is a frame of the parser's working buffers.
const goroutineFrameRefCost = int64(unsafe.Sizeof(goroutineFrameRef{}))

// parseGoroutineText parses a text goroutine dump (debug=1, debug=2, runtime.Stack,
// panic, fatal error or SIGQUIT output, with any other text around it). It returns a
// dump with no goroutines, not an error, when the text holds none; read errors are
// returned as they are.
func parseGoroutineText(r io.Reader) (*Dump, error) {
	return parseGoroutineTextWithin(r, nil)
}

// parseGoroutineTextWithin is parseGoroutineText within a memory budget (nil:
// unbounded), as ParseWithin.
func parseGoroutineTextWithin(r io.Reader, budget *analyze.Budget) (*Dump, error) {
	p := &goroutineTextParser{
		in:     newGoroutineInterner(),
		d:      &Dump{DeclaredTotal: -1},
		labels: map[string]map[string]string{},
	}
	p.meter = *analyze.NewMeter(budget)
	p.in.meter = &p.meter
	defer p.meter.Settle()
	br := bufio.NewReaderSize(r, goroutineLineBuffer)
	partial := false
	for {
		line, err := br.ReadSlice('\n')
		terminated := len(line) > 0 && line[len(line)-1] == '\n'
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
			}
			terminated = len(line) > 0 && line[len(line)-1] == '\n'
			line = []byte{0} // an overlong line is nothing the parser knows
		}
		if len(line) > 0 {
			if !terminated {
				// The input ends without a line feed: cut, if that happened
				// inside a goroutine.
				partial = p.mode == goroutineModeFrames || p.mode == goroutineModeAncestors || p.mode == goroutineModeDebug1
			}
			p.line(trimGoroutineEOL(line))
			if p.in.err != nil {
				return nil, p.in.err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	p.end(partial)
	if p.in.err != nil {
		return nil, p.in.err
	}
	p.d.memSize = p.meter.Spent()
	return p.d, nil
}

// chargeFrames charges the growth of the working frame buffers before a frame
// is appended to one of them.
func (p *goroutineTextParser) chargeFrames(buf []goroutineFrameRef, charged *int) {
	if len(buf) < *charged {
		return
	}
	grow := max(len(buf), 16)
	if p.in.charge(int64(grow) * goroutineFrameRefCost) {
		*charged += grow
	}
}

// keep appends the goroutine read to the dump, charging it first.
func (p *goroutineTextParser) keep() {
	if p.in.charge(goroutineCost) {
		p.d.Goroutines = append(p.d.Goroutines, p.cur)
	}
}

func trimGoroutineEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// line handles one line (without its end-of-line bytes).
func (p *goroutineTextParser) line(l []byte) {
	if id, status, ok := parseGoroutineHeader(l); ok {
		p.finish()
		p.startGoroutine(id, status)
		return
	}
	switch p.mode {
	case goroutineModeFrames:
		if p.goroutineLine(l) {
			return
		}
		p.finish()
	case goroutineModeAncestors:
		if len(l) == 0 {
			p.finish()
		}
		return
	case goroutineModeDebug1:
		if p.debug1Line(l) {
			return
		}
		p.finish()
	case goroutineModeCrash:
		if p.crashLine(l) {
			return
		}
		p.finish()
	case goroutineModeRuntimeStack:
		if p.runtimeStackLine(l) {
			return
		}
		p.finish()
	}
	p.outsideLine(l)
}

// outsideLine handles a line between goroutines.
func (p *goroutineTextParser) outsideLine(l []byte) {
	if len(l) == 0 {
		return
	}
	const totalPrefix = "goroutine profile: total "
	const leakPrefix = "goroutineleak profile: total "
	for _, prefix := range [...]string{totalPrefix, leakPrefix} {
		if len(l) > len(prefix) && string(l[:len(prefix)]) == prefix {
			if v, n := parseGoroutineDecimal(l[len(prefix):]); n > 0 && n == len(l)-len(prefix) && v < 1<<31 {
				p.d.DeclaredTotal = int(v)
				if p.d.Format == "" {
					p.d.Format = FormatDebug1
				}
				if prefix == leakPrefix {
					p.d.ProvenLeaked = true
				}
				return
			}
		}
	}
	if count, ok := parseGoroutineDebug1Record(l); ok && count < 1<<31 {
		p.mode = goroutineModeDebug1
		p.cur = Goroutine{ID: -1, Count: int(count), CreatorID: -1}
		p.frames = p.frames[:0]
		if p.d.Format == "" {
			p.d.Format = FormatDebug1
		}
		return
	}
	if kind, msg := goroutineCrashKind(l); kind != "" && p.d.Crash == nil {
		p.d.Crash = &Crash{Kind: kind, Goroutine: -1}
		if p.d.Format == "" || p.d.Format == FormatText {
			p.d.Format = kind
			if kind == FormatSignal {
				p.d.Format = goroutineSignalName(l)
			}
		}
		p.message = append(p.message[:0], msg...)
		p.mode = goroutineModeCrash
		return
	}
	if p.d.Crash != nil && p.d.Crash.Signal == "" && goroutineLineHasPrefix(l, "[signal ") {
		p.d.Crash.Signal = string(l)
		return
	}
	if string(l) == "runtime stack:" {
		p.mode = goroutineModeRuntimeStack
		p.runtime = p.runtime[:0]
		p.hasPending = false
		return
	}
	p.d.IgnoredLines++
}

func goroutineLineHasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// startGoroutine begins a goroutine from its header.
func (p *goroutineTextParser) startGoroutine(id int64, status []byte) {
	st := parseGoroutineStatus(status)
	p.mode = goroutineModeFrames
	p.cur = Goroutine{
		ID:          id,
		Count:       1,
		State:       p.in.str(st.state),
		WaitMinutes: st.waitMinutes,
		Locked:      st.locked,
		CreatorID:   -1,
	}
	if st.labels != nil {
		p.setLabels(st.labels)
	}
	p.frames = p.frames[:0]
	p.hasPending, p.hasCreated, p.cbPending, p.note = false, false, false, false
	if p.d.Format == "" {
		p.d.Format = FormatText
	}
	// The first goroutine after a panic or fatal error message is the one that
	// crashed; a signal dump starts with whichever goroutine took the signal.
	if c := p.d.Crash; c != nil && c.Goroutine < 0 && c.Kind != FormatSignal {
		c.Goroutine = id
	}
}

// goroutineLine handles a line inside a goroutine and reports whether it belongs
// to it.
func (p *goroutineTextParser) goroutineLine(l []byte) bool {
	if p.hasPending || p.cbPending {
		if file, line, ok := parseGoroutineFileLine(l); ok {
			ref := goroutineFrameRef{file: p.in.id(file), line: line}
			if p.hasPending {
				ref.fn = p.pending.fn
				p.chargeFrames(p.frames, &p.framesCap)
				p.frames = append(p.frames, ref)
				p.hasPending = false
			} else {
				p.createdBy.file, p.createdBy.line = ref.file, ref.line
				p.cbPending = false
			}
			return true
		}
		// A call without its location: the line was noise, or the dump lost it.
		p.hasPending, p.cbPending = false, false
	}
	if len(l) == 0 {
		p.finish()
		return true
	}
	if fn, ok := parseGoroutineFuncLine(l, true); ok {
		p.pending = goroutineFrameRef{fn: p.in.id(fn)}
		p.hasPending = true
		return true
	}
	if fn, creator, ok := parseGoroutineCreatedBy(l); ok {
		p.createdBy = goroutineFrameRef{fn: p.in.id(fn)}
		p.hasCreated, p.cbPending = true, true
		p.cur.CreatorID = creator
		return true
	}
	if marker, ok := goroutineElidedMarker(l); ok {
		p.chargeFrames(p.frames, &p.framesCap)
		p.frames = append(p.frames, goroutineFrameRef{fn: p.in.idString(marker), elided: true})
		return true
	}
	if goroutineLineHasPrefix(l, "[originating from goroutine ") {
		p.mode = goroutineModeAncestors
		return true
	}
	if l[0] == '\t' || l[0] == ' ' {
		// "\tgoroutine running on other thread; stack unavailable" and the like.
		p.note = true
		return true
	}
	return false
}

// debug1Line handles a line inside a debug=1 record.
func (p *goroutineTextParser) debug1Line(l []byte) bool {
	if len(l) == 0 {
		p.finish()
		return true
	}
	if fn, file, line, ok := parseGoroutineDebug1Frame(l); ok {
		p.chargeFrames(p.frames, &p.framesCap)
		p.frames = append(p.frames, goroutineFrameRef{fn: p.in.id(fn), file: p.in.id(file), line: line})
		return true
	}
	if goroutineLineHasPrefix(l, "# labels: ") {
		p.setLabels(l[len("# labels: "):])
		return true
	}
	return false
}

// crashLine handles a line of a crash message.
func (p *goroutineTextParser) crashLine(l []byte) bool {
	if len(l) == 0 {
		p.finish()
		return true
	}
	if string(l) == "runtime stack:" {
		return false
	}
	if goroutineLineHasPrefix(l, "[signal ") && p.d.Crash.Signal == "" {
		p.d.Crash.Signal = string(l)
		return true
	}
	if len(p.message)+1+len(l) <= goroutineMessageLimit {
		p.message = append(append(p.message, '\n'), l...)
	}
	return true
}

// runtimeStackLine handles a line of a fatal error's system stack, where frames
// mix with hex dumps and unwinder complaints.
func (p *goroutineTextParser) runtimeStackLine(l []byte) bool {
	if len(l) == 0 {
		p.finish()
		return true
	}
	if p.hasPending {
		if file, line, ok := parseGoroutineFileLine(l); ok {
			p.chargeFrames(p.runtime, &p.runtimeCap)
			p.runtime = append(p.runtime, goroutineFrameRef{fn: p.pending.fn, file: p.in.id(file), line: line})
			p.hasPending = false
			return true
		}
		p.hasPending = false
	}
	if fn, ok := parseGoroutineFuncLine(l, false); ok {
		p.pending = goroutineFrameRef{fn: p.in.id(fn)}
		p.hasPending = true
	}
	return true
}

// setLabels attaches a label set to the goroutine or record being read.
func (p *goroutineTextParser) setLabels(b []byte) {
	labels, key, ok := parseGoroutineLabels(b)
	if !ok || key == "" {
		return
	}
	if shared, ok := p.labels[key]; ok {
		labels = shared
	} else {
		if !p.in.charge(2*int64(len(key)) + int64(len(labels))*goroutineStringCost) {
			return
		}
		p.labels[key] = labels
	}
	p.cur.Labels, p.cur.labelsKey = labels, key
}

// finish completes whatever the parser is in the middle of.
func (p *goroutineTextParser) finish() {
	switch p.mode {
	case goroutineModeFrames, goroutineModeAncestors:
		if p.hasPending {
			p.chargeFrames(p.frames, &p.framesCap)
			p.frames = append(p.frames, p.pending)
			p.hasPending = false
		}
		var cb *goroutineFrameRef
		if p.hasCreated {
			cb = &p.createdBy
		}
		p.cur.Stack = p.in.stack(p.frames, cb)
		p.keep()
	case goroutineModeDebug1:
		if p.cur.Count > 0 { // "0 @ …" stands for no goroutine
			p.cur.Stack = p.in.stack(p.frames, nil)
			p.keep()
		}
	case goroutineModeCrash:
		p.d.Crash.Message = string(p.message)
	case goroutineModeRuntimeStack:
		if p.d.Crash != nil && p.d.Crash.RuntimeStack == nil && p.in.charge(int64(len(p.runtime))*goroutineFrameCost) {
			p.d.Crash.RuntimeStack = make([]Frame, len(p.runtime))
			for i, f := range p.runtime {
				p.d.Crash.RuntimeStack[i] = p.in.frame(f)
			}
		}
		p.hasPending = false
	}
	p.mode = goroutineModeOutside
}

// end completes the dump at the end of the input; cutLine tells that the input
// ended inside a goroutine with a line that had no line feed.
func (p *goroutineTextParser) end(cutLine bool) {
	switch p.mode {
	case goroutineModeFrames:
		// A goroutine whose last call has no location, or that has no frames at
		// all, was cut off by the end of the input.
		if p.hasPending || p.cbPending || (len(p.frames) == 0 && !p.note) {
			p.d.Truncated = true
		}
	case goroutineModeDebug1:
		if len(p.frames) == 0 {
			p.d.Truncated = true
		}
	}
	if cutLine {
		p.d.Truncated = true
	}
	p.finish()
	if p.d.DeclaredTotal >= 0 && p.d.Total() < p.d.DeclaredTotal {
		p.d.Truncated = true
	}
}
