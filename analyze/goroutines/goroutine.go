package goroutines

import (
	"strconv"
	"strings"
	"time"
)

// The formats a Dump can come from, as Dump.Format names them.
const (
	// FormatDebug1 is /debug/pprof/goroutine?debug=1: goroutines already
	// counted per stack by the runtime, without ids, states or creators.
	FormatDebug1 = "debug=1"
	// FormatText is one traceback per goroutine: /debug/pprof/goroutine?debug=2,
	// runtime.Stack(buf, true), or a crash dump without a recognized crash message.
	FormatText = "goroutine dump"
	// FormatPanic is the output of a Go program that died of a panic.
	FormatPanic = "panic"
	// FormatFatal is the output of a Go program that died of a runtime fatal
	// error ("fatal error: all goroutines are asleep - deadlock!", a bad signal).
	FormatFatal = "fatal error"
	// FormatSignal is the output of a Go program killed by a signal it
	// dumps its goroutines for, such as SIGQUIT; the format is named by the signal
	// instead ("SIGQUIT"), this constant only documents the family.
	FormatSignal = "signal"
	// FormatProto is a goroutine profile in profile.proto
	// (/debug/pprof/goroutine, debug=0).
	FormatProto = "profile.proto"
)

// Frame is one call in a goroutine's stack.
type Frame struct {
	// Func is the function as the runtime names it, without arguments, such as
	// "net/http.(*Server).Serve" or "main.main.func1".
	Func string `json:"func"`
	// File and Line locate the call; empty and 0 when the dump does not say.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Elided marks the runtime's "...additional frames elided..." marker (or
	// "...N frames elided..."), which stands for frames the dump left out; Func then
	// holds the marker text without the number.
	Elided bool `json:"elided,omitempty"`
}

// Location is "file:line", or the file alone when the line is unknown.
func (f Frame) Location() string {
	if f.Line == 0 {
		return f.File
	}
	return f.File + ":" + strconv.Itoa(f.Line)
}

// Stack is a call stack, innermost call first, with the call that started
// the goroutine. Every goroutine of one dump with the same calls (function, file and
// line; argument values and program-counter offsets ignored) shares one
// *Stack, so stacks can be compared by pointer within a dump. Treat it as
// read-only.
type Stack struct {
	Frames []Frame
	// CreatedBy is the `go` statement that started the goroutine ("created by …"),
	// nil when the dump does not say (the main goroutine, debug=1 and proto
	// profiles).
	CreatedBy *Frame
}

// Funcs lists the function names of the stack, innermost first.
func (s *Stack) Funcs() []string {
	names := make([]string, len(s.Frames))
	for i, f := range s.Frames {
		names[i] = f.Func
	}
	return names
}

// Goroutine is one goroutine of a dump, or, for formats that count goroutines per
// stack (debug=1, proto), one record standing for Count goroutines.
type Goroutine struct {
	// ID is the goroutine id, or -1 for a counted record.
	ID int64
	// Count is 1 for a single goroutine, the record's count otherwise.
	Count int
	// State is the wait reason or status as printed, such as "chan receive",
	// "IO wait", "running", "select"; empty when the format has none.
	State string
	// WaitMinutes is how long the goroutine has been blocked, in whole minutes as
	// the runtime prints it ("[chan receive, 5 minutes]"); 0 means under a minute or
	// not known.
	WaitMinutes int
	// Locked reports "locked to thread" (runtime.LockOSThread).
	Locked bool
	// CreatorID is the goroutine that started this one ("created by … in goroutine
	// N", Go 1.21 and later), or -1 when the dump does not say.
	CreatorID int64
	// Labels are the pprof labels of the goroutine (debug=1, proto, or tracebacks
	// with GODEBUG=tracebacklabels=1); nil when there are none. Shared, read-only.
	Labels map[string]string
	// Stack is the goroutine's call stack, shared with every goroutine of the dump
	// that has the same one.
	Stack *Stack

	labelsKey string // canonical form of Labels, for grouping
}

// Crash is what a dying program printed before its goroutines.
type Crash struct {
	// Kind is "panic", "fatal error" or "signal".
	Kind string `json:"kind"`
	// Message is the crash message without its "panic: " or "fatal error: " prefix,
	// with its continuation lines ("[recovered]", nested panics, test timeouts); for
	// a signal, the signal line and the register line after it.
	Message string `json:"message"`
	// Signal is the "[signal SIGSEGV: segmentation violation …]" line, if any.
	Signal string `json:"signal,omitempty"`
	// Goroutine is the id of the goroutine that panicked or threw, the first one
	// printed after the message; -1 for a signal dump or when none follows.
	Goroutine int64 `json:"goroutine"`
	// RuntimeStack is the system stack printed under "runtime stack:" by a fatal
	// error, innermost first; it belongs to no goroutine.
	RuntimeStack []Frame `json:"runtime_stack,omitempty"`
}

// Dump is a parsed goroutine dump or goroutine profile.
type Dump struct {
	// Format is one of the Format constants, or a signal name ("SIGQUIT").
	Format string
	// DeclaredTotal is the count the dump states about itself ("goroutine profile:
	// total N"), or -1 when it states none.
	DeclaredTotal int
	// Goroutines are the goroutines (or counted records) in the order of the dump.
	Goroutines []Goroutine
	// Crash is the panic or fatal error the dump starts with; nil for a dump of a
	// live program.
	Crash *Crash
	// Time is when a proto profile was taken; zero when unknown.
	Time time.Time
	// Truncated reports that the dump ends inside a goroutine (cut mid-frame, a
	// runtime.Stack buffer too small) or that a debug=1 dump holds fewer goroutines
	// than its total line says. What was there is parsed.
	Truncated bool
	// IgnoredLines counts the lines that belong to no goroutine and no crash
	// message: `go run` banners, hex dumps, registers, log lines around the dump.
	IgnoredLines int
	// ProvenLeaked reports that the dump is the Go runtime's goroutineleak profile
	// (GOEXPERIMENT=goroutineleakprofile, /debug/pprof/goroutineleak, in proto or
	// debug=1 text): every goroutine in it was proved by the garbage collector to be
	// blocked forever, on channels or locks nothing reachable can wake.
	ProvenLeaked bool

	memSize int64 // the bytes charged to the budget it was parsed within
}

// MemSize is what the dump and its grouping were charged when it was parsed
// within a budget (ParseWithin), for a cache to bound what it keeps; 0 when it
// was parsed without one.
func (d *Dump) MemSize() int64 { return d.memSize }

// LeakedStateSuffix ends the state of a goroutine the runtime proved leaked, as a
// debug=2 dump prints it after a leak check ("chan receive (leaked)").
const LeakedStateSuffix = " (leaked)"

// LeakProofHint says in one line how to get the Go runtime's proof of leaked
// goroutines, for reports of dumps that do not carry it.
const LeakProofHint = "The Go runtime can prove which goroutines leaked: build with GOEXPERIMENT=goroutineleakprofile (Go 1.26) and fetch /debug/pprof/goroutineleak."

// Leaked is how many goroutines of the dump the runtime proved leaked: all of them
// in a goroutineleak profile, else those whose state ends in LeakedStateSuffix.
func (d *Dump) Leaked() int {
	if d.ProvenLeaked {
		return d.Total()
	}
	n := 0
	for i := range d.Goroutines {
		if strings.HasSuffix(d.Goroutines[i].State, LeakedStateSuffix) {
			n += d.Goroutines[i].Count
		}
	}
	return n
}

// Total is the number of goroutines in the dump: the sum of the records' counts.
func (d *Dump) Total() int {
	n := 0
	for i := range d.Goroutines {
		n += d.Goroutines[i].Count
	}
	return n
}

// PerGoroutine reports whether the dump lists goroutines one by one (with ids,
// states and creators) rather than counted per stack.
func (d *Dump) PerGoroutine() bool {
	return d.Format != FormatDebug1 && d.Format != FormatProto
}
