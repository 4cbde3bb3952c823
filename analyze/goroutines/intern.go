package goroutines

import (
	"encoding/binary"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// goroutineFrameRef is a frame whose strings are interned as numbers, the parser's working
// form: comparing and hashing stacks of refs is cheap.
type goroutineFrameRef struct {
	fn, file uint32
	line     int32
	elided   bool
}

// goroutineInterner makes every distinct string and every distinct stack of a dump
// exist once, so a dump of 50,000 goroutines over a few hundred stacks costs a few
// hundred stacks of memory.
type goroutineInterner struct {
	ids     map[string]uint32
	strings []string
	stacks  map[string]*Stack
	key     []byte
	// meter, when set, is charged for every string and stack before it is
	// kept; err is its first refusal, after which nothing more is kept (the
	// parser checks it after every line).
	meter *analyze.Meter
	err   error
}

// In-memory costs the interner charges, beyond the bytes of the strings: a
// string's place in the table and the map (header, key, bucket share), a stack's
// struct, map entry and key, a frame.
const (
	goroutineStringCost = 16 + 16 + 40
	goroutineStackCost  = int64(unsafe.Sizeof(Stack{})) + 48
	goroutineFrameCost  = int64(unsafe.Sizeof(Frame{}))
)

// charge counts n bytes on the meter; false (and err set) when the budget
// refuses them.
func (in *goroutineInterner) charge(n int64) bool {
	if in.err != nil {
		return false
	}
	if in.meter == nil {
		return true
	}
	if err := in.meter.Charge(n); err != nil {
		in.err = err
		return false
	}
	return true
}

func newGoroutineInterner() *goroutineInterner {
	return &goroutineInterner{
		ids:     map[string]uint32{"": 0},
		strings: []string{""},
		stacks:  map[string]*Stack{},
	}
}

// id interns b and returns its number; looking up an existing string allocates
// nothing.
func (in *goroutineInterner) id(b []byte) uint32 {
	if id, ok := in.ids[string(b)]; ok {
		return id
	}
	if !in.charge(int64(len(b)) + goroutineStringCost) {
		return 0
	}
	s := string(b)
	id := uint32(len(in.strings))
	in.strings = append(in.strings, s)
	in.ids[s] = id
	return id
}

// idString is id for a string.
func (in *goroutineInterner) idString(s string) uint32 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	if !in.charge(int64(len(s)) + goroutineStringCost) {
		return 0
	}
	id := uint32(len(in.strings))
	in.strings = append(in.strings, s)
	in.ids[s] = id
	return id
}

// str returns an interned copy of b.
func (in *goroutineInterner) str(b []byte) string {
	return in.strings[in.id(b)]
}

// stack returns the one *Stack with these frames and creator, creating
// it on first sight. frames is not retained.
func (in *goroutineInterner) stack(frames []goroutineFrameRef, createdBy *goroutineFrameRef) *Stack {
	key := in.key[:0]
	for _, f := range frames {
		key = appendGoroutineFrameKey(key, f)
	}
	if createdBy != nil {
		key = append(key, 0xff)
		key = appendGoroutineFrameKey(key, *createdBy)
	}
	in.key = key
	if s, ok := in.stacks[string(key)]; ok {
		return s
	}
	if !in.charge(goroutineStackCost + int64(len(key)) + int64(len(frames)+1)*goroutineFrameCost) {
		return emptyGoroutineStack
	}
	s := &Stack{Frames: make([]Frame, len(frames))}
	for i, f := range frames {
		s.Frames[i] = in.frame(f)
	}
	if createdBy != nil {
		cb := in.frame(*createdBy)
		s.CreatedBy = &cb
	}
	in.stacks[string(key)] = s
	return s
}

func (in *goroutineInterner) frame(f goroutineFrameRef) Frame {
	return Frame{Func: in.strings[f.fn], File: in.strings[f.file], Line: int(f.line), Elided: f.elided}
}

func appendGoroutineFrameKey(key []byte, f goroutineFrameRef) []byte {
	key = binary.LittleEndian.AppendUint32(key, f.fn)
	key = binary.LittleEndian.AppendUint32(key, f.file)
	line := uint32(f.line)
	if f.elided {
		line |= 1 << 31
	}
	return binary.LittleEndian.AppendUint32(key, line)
}

// emptyGoroutineStack stands for a stack the budget had no room for; the parse
// fails with the budget's error, so no dump holds it.
var emptyGoroutineStack = &Stack{}
