package jvm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// Lock is one lock line under a thread's frame ("- locked <0x…> (a Foo)") or
// one of its "Locked ownable synchronizers".
type Lock struct {
	// Kind is what the thread does with the object, as printed: "locked",
	// "waiting on", "waiting to lock", "parking to wait for", "waiting to re-lock in
	// wait()", "eliminated", or "owns" for an ownable synchronizer.
	Kind string `json:"kind"`
	// Address is the object's address ("0x00000000d75b1e48"), empty when the JVM
	// printed none.
	Address string `json:"address,omitempty"`
	// Class is the object's class ("java.util.TaskQueue").
	Class string `json:"class,omitempty"`
	// Frame is the index in Frames of the frame the line follows, -1 for an
	// ownable synchronizer.
	Frame int `json:"frame"`
}

// Held reports whether the thread holds the object (a monitor it locked or an
// ownable synchronizer it owns).
func (l Lock) Held() bool { return l.Kind == "locked" || l.Kind == "owns" }

// Waiting reports whether the thread waits for the object.
func (l Lock) Waiting() bool { return !l.Held() && l.Kind != "eliminated" }

// Thread is one thread of a JVM thread dump.
type Thread struct {
	Name string `json:"name"`
	// Number is the Java thread number ("#20"), 0 when not printed (JDK 5, VM threads).
	Number int64  `json:"number,omitempty"`
	Daemon bool   `json:"daemon"`
	TID    string `json:"tid,omitempty"`
	NID    string `json:"nid,omitempty"`
	// Status is what the header line says after the ids: "waiting on condition",
	// "in Object.wait()", "runnable".
	Status string `json:"status,omitempty"`
	// State is the java.lang.Thread.State line ("TIMED_WAITING (sleeping)"); JDK 5
	// does not print it.
	State  string   `json:"state,omitempty"`
	Frames []string `json:"frames"`
	Locks  []Lock   `json:"locks,omitempty"`
	// Deadlocked is set for the threads of a deadlock the JVM reported.
	Deadlocked bool `json:"deadlocked,omitempty"`
	// Line is the line of the thread's header in its file, from 1.
	Line int `json:"line"`
}

// EffectiveState is the thread's java.lang.Thread.State, or the header's status when
// the JVM did not print a state (JDK 5, VM threads).
func (t *Thread) EffectiveState() string {
	if t.State != "" {
		return t.State
	}
	if t.Status != "" {
		return t.Status
	}
	return "unknown"
}

// Deadlock is one deadlock cycle the JVM found and printed after a dump ("Found
// one Java-level deadlock:").
type Deadlock struct {
	Threads []DeadlockThread `json:"threads"`
}

// DeadlockThread is one thread of a deadlock cycle.
type DeadlockThread struct {
	Name string `json:"name"`
	// Waiting is what it waits for, as printed ("waiting to lock monitor 0x… (object
	// 0x…, a java.lang.Object)").
	Waiting string `json:"waiting"`
	// HeldBy names the thread that holds it.
	HeldBy string `json:"held_by"`
}

// ThreadDump is one dump: the threads printed after one "Full thread dump" line
// (or, for a fragment without that line, all of them).
type ThreadDump struct {
	// Header is the "Full thread dump …" line naming the JVM, empty for a fragment.
	Header string `json:"header,omitempty"`
	// Time is when the dump was taken, from the time stamp line jstack prints
	// before it; zero when the file does not say.
	Time      time.Time  `json:"time,omitzero"`
	Line      int        `json:"line"`
	Threads   []Thread   `json:"threads"`
	Deadlocks []Deadlock `json:"deadlocks,omitempty"`
	// Heap is the heap summary a JDK 8 SIGQUIT dump prints after the threads.
	Heap []string `json:"heap,omitempty"`
	// Origin is the JVM the dump came from: jcmd's process id, the version in
	// the header and the main thread's main class, when the file has them.
	Origin
}

// ThreadFile is everything ParseThreadDumps found in one file: the thread
// dumps in order (a log may hold several SIGQUIT dumps) and any class histograms
// printed with them (-XX:+PrintClassHistogram).
type ThreadFile struct {
	Dumps      []*ThreadDump `json:"dumps"`
	Histograms []*Histogram  `json:"histograms,omitempty"`
	Warnings   []string      `json:"warnings,omitempty"`
}

// Threads counts the threads of every dump in the file.
func (f *ThreadFile) Threads() int {
	n := 0
	for _, d := range f.Dumps {
		n += len(d.Threads)
	}
	return n
}

// Dump returns the i-th dump counting from 1, or from the end when i is negative
// (-1 is the last), and false when there is no such dump.
func (f *ThreadFile) Dump(i int) (*ThreadDump, bool) {
	if i < 0 {
		i += len(f.Dumps) + 1
	}
	if i < 1 || i > len(f.Dumps) {
		return nil, false
	}
	return f.Dumps[i-1], true
}

// ParseThreadDumps reads JVM thread dumps from r: jstack and jstack -l output,
// jcmd <pid> Thread.print, SIGQUIT dumps from JDK 5 to 25 alone or inside a container
// log, several dumps in one file. Bytes that are not UTF-8 are kept as U+FFFD, never
// rejected. A thread is a line that starts with a quoted name and holds "tid=" (what
// `grep -c '^".*tid='` counts). r is text (see Decompress, which also turns UTF-16
// into UTF-8). A dump whose every line carries a log collector's prefix (`kubectl
// logs --timestamps`, journald, Docker JSON lines; see analyze.DetectLinePrefix) is
// read without it. It fails with ErrEmpty on no input and ErrUnsupportedKind when
// there is no thread in it.
func ParseThreadDumps(r io.Reader) (*ThreadFile, error) {
	return ParseThreadDumpsWithin(r, nil)
}

// ParseThreadDumpsWithin is ParseThreadDumps within a memory budget (nil:
// unbounded), charged as ParseHistogramsWithin charges it: every dump, thread,
// frame, lock and string before it is kept, with what grouping the threads
// needs (GroupThreads keys a group by its frames' text).
func ParseThreadDumpsWithin(r io.Reader, budget *analyze.Budget) (*ThreadFile, error) {
	br := bufio.NewReaderSize(r, analyze.SniffSize)
	head, _ := br.Peek(analyze.SniffSize) // a read error comes again from br, after head
	r = analyze.StripLinePrefix(br, analyze.DetectLinePrefix(head))
	p := &threadParser{lines: newLineReader(r, budget), file: &ThreadFile{}, intern: map[string]string{}}
	defer p.lines.meter.Settle()
	if err := p.run(); err != nil {
		return nil, err
	}
	f := p.file
	if w := p.lines.cutWarning(); w != "" {
		f.Warnings = append(f.Warnings, w)
	}
	if p.lines.num == 0 {
		return nil, analyze.ErrEmpty
	}
	if f.Threads() == 0 {
		return nil, fmt.Errorf("%w: no JVM thread (a line like \"name\" … tid=…) in %d lines", analyze.ErrUnsupportedKind, p.lines.num)
	}
	kept := f.Dumps[:0]
	for _, d := range f.Dumps {
		if len(d.Threads) > 0 {
			kept = append(kept, d)
		} else {
			f.Warnings = append(f.Warnings, fmt.Sprintf("the thread dump at line %d has no threads", d.Line))
		}
	}
	f.Dumps = kept
	for _, d := range f.Dumps {
		markDeadlocked(d)
		d.Program = threadProgram(d.Threads)
	}
	return f, nil
}

// threadParser is the state of one ParseThreadDumps run.
type threadParser struct {
	lines  *lineReader
	file   *ThreadFile
	dump   *ThreadDump
	thread *Thread   // the thread whose lines are being read, nil between threads
	owned  bool      // inside its "Locked ownable synchronizers:"
	heap   bool      // inside a "Heap" summary
	stamp  time.Time // a time stamp line not yet claimed by a dump
	pid    int64     // the process id of jcmd's first line, 0 when none
	// deadlock is set inside a "Found one Java-level deadlock:" section; stacks is
	// set in its "Java stack information" part, which repeats threads already read.
	deadlock *Deadlock
	stacks   bool
	intern   map[string]string
}

func (p *threadParser) run() error {
	for p.lines.next() {
		line := p.lines.line()
		switch {
		case len(line) > 0 && line[0] == '"' && bytes.Contains(line, []byte("tid=")):
			p.startThread(line)
		case isSpace(firstByte(line)) || len(bytes.TrimSpace(line)) == 0:
			p.indented(line)
		default:
			if err := p.topLevel(line); err != nil {
				return err
			}
		}
	}
	return p.lines.readErr()
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// topLevel handles a line that starts in column 0 and is not a thread header: it
// ends the current thread and may start a dump, a deadlock report, a heap summary
// or a class histogram.
func (p *threadParser) topLevel(line []byte) error {
	p.thread, p.owned, p.heap = nil, false, false
	switch {
	case bytes.HasPrefix(line, []byte("Full thread dump")):
		if !p.lines.charge(dumpCost + int64(len(line))) {
			return nil
		}
		p.deadlock, p.stacks = nil, false
		p.dump = &ThreadDump{Header: jvmText(bytes.TrimSpace(line)), Line: p.lines.num, Time: p.stamp, Threads: []Thread{}}
		p.dump.PID, p.dump.JVMVersion = p.pid, headerJVMVersion(p.dump.Header)
		p.stamp = time.Time{}
		p.file.Dumps = append(p.file.Dumps, p.dump)
	case bytes.HasPrefix(line, []byte("Found one ")) && bytes.Contains(line, []byte("deadlock")):
		if !p.lines.charge(dumpCost) {
			return nil
		}
		p.stacks = false
		p.currentDump().Deadlocks = append(p.currentDump().Deadlocks, Deadlock{})
		p.deadlock = &p.dump.Deadlocks[len(p.dump.Deadlocks)-1]
	case p.deadlock != nil && bytes.HasPrefix(line, []byte("Java stack information")):
		p.stacks = true
	case p.deadlock != nil && bytes.HasPrefix(line, []byte("Found ")):
		p.deadlock, p.stacks = nil, false
	case p.deadlock != nil && !p.stacks && line[0] == '"':
		if !p.lines.charge(lineCost + int64(len(line))) {
			return nil
		}
		name := bytes.TrimSuffix(bytes.TrimSpace(line), []byte(":"))
		name = bytes.TrimSuffix(bytes.TrimPrefix(name, []byte(`"`)), []byte(`"`))
		p.deadlock.Threads = append(p.deadlock.Threads, DeadlockThread{Name: jvmText(name)})
	case bytes.Equal(bytes.TrimSpace(line), []byte("Heap")):
		p.heap = true
	default:
		if t, ok := timestampLine(line); ok {
			p.stamp = t
			return nil
		}
		if pid, ok := pidLine(line); ok {
			p.pid = pid
			return nil
		}
		if format, modules, ok := histogramHeader(line); ok {
			h, err := parseHistogramSection(p.lines, format, modules)
			if err != nil {
				return err
			}
			if len(h.Classes) > 0 || h.HasTotal {
				h.PID = p.pid
				h.Time = p.stamp
				if h.Time.IsZero() && p.dump != nil {
					h.Time = p.dump.Time
				}
				p.file.Histograms = append(p.file.Histograms, h)
			}
		}
	}
	return nil
}

// currentDump returns the dump being read, starting one for a fragment without a
// "Full thread dump" line.
func (p *threadParser) currentDump() *ThreadDump {
	if p.dump == nil {
		p.dump = &ThreadDump{Line: p.lines.num, Time: p.stamp, Threads: []Thread{}}
		p.dump.PID = p.pid
		p.stamp = time.Time{}
		p.file.Dumps = append(p.file.Dumps, p.dump)
	}
	return p.dump
}

// startThread parses a thread header line such as
// `"Timer-0" #16 daemon prio=6 os_prio=0 tid=0x00007f92b0057800 nid=0x2a40 in Object.wait() [0x00007f92f9ea4000]`.
func (p *threadParser) startThread(line []byte) {
	if !p.lines.charge(threadCost + int64(len(line))) {
		return
	}
	p.owned, p.heap, p.deadlock, p.stacks = false, false, nil, false
	d := p.currentDump()
	name, attrs := []byte{}, line[1:]
	if end := bytes.LastIndexByte(line, '"'); end > 0 {
		name, attrs = line[1:end], line[end+1:]
	}
	t := Thread{Name: jvmText(name), Line: p.lines.num, Frames: []string{}}
	fields := bytes.Fields(attrs)
	i := 0
	for ; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f[0] == '#' && len(f) > 1:
			for _, c := range f[1:] {
				if !isDigit(c) || t.Number > 1e15 {
					break
				}
				t.Number = t.Number*10 + int64(c-'0')
			}
			continue
		case bytes.Equal(f, []byte("daemon")), bytes.Equal(f, []byte("virtual")):
			t.Daemon = t.Daemon || f[0] == 'd'
			continue
		case f[0] == '[' && f[len(f)-1] == ']' && t.TID == "":
			continue // the OS thread id JDK 19+ prints after the number
		}
		key, value, ok := bytes.Cut(f, []byte("="))
		if !ok {
			break
		}
		switch string(key) {
		case "tid":
			t.TID = jvmText(value)
		case "nid":
			t.NID = jvmText(value)
		}
	}
	status := fields[i:]
	if n := len(status); n > 0 && status[n-1][0] == '[' {
		status = status[:n-1] // the stack address range
	}
	t.Status = jvmText(bytes.Join(status, []byte(" ")))
	d.Threads = append(d.Threads, t)
	p.thread = &d.Threads[len(d.Threads)-1]
}

// indented handles an indented or blank line: a line of the current thread, of a
// heap summary or of a deadlock report.
func (p *threadParser) indented(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || (p.deadlock == nil && !p.heap && p.thread == nil) {
		return
	}
	// A line of a thread is kept as a frame (its text interned, see text, and
	// in its group's key), a lock or its state; of a deadlock report or a heap
	// summary, as text.
	cost := lineCost
	if bytes.HasPrefix(t, []byte("at ")) {
		cost = frameCost
	}
	if !p.lines.charge(cost + int64(len(t))) {
		return
	}
	switch {
	case p.deadlock != nil && !p.stacks && len(p.deadlock.Threads) > 0:
		last := &p.deadlock.Threads[len(p.deadlock.Threads)-1]
		if rest, ok := bytes.CutPrefix(t, []byte("which is held by ")); ok {
			last.HeldBy = jvmText(bytes.Trim(rest, `"`))
		} else if last.Waiting == "" {
			last.Waiting = jvmText(bytes.TrimSuffix(t, []byte(",")))
		}
	case p.heap:
		if d := p.currentDump(); len(d.Heap) < 64 {
			d.Heap = append(d.Heap, jvmText(t))
		}
	case p.thread != nil:
		p.threadLine(t)
	}
}

// threadLine adds one trimmed line of a thread's block to it.
func (p *threadParser) threadLine(t []byte) {
	th := p.thread
	switch {
	case bytes.HasPrefix(t, []byte("at ")):
		th.Frames = append(th.Frames, p.text(t[3:]))
	case bytes.HasPrefix(t, []byte("- ")):
		if lock, ok := parseLock(t[2:], p); ok {
			lock.Frame = len(th.Frames) - 1
			if p.owned {
				lock.Kind, lock.Frame = "owns", -1
			}
			th.Locks = append(th.Locks, lock)
		}
	case bytes.HasPrefix(t, []byte("java.lang.Thread.State: ")):
		th.State = p.text(t[len("java.lang.Thread.State: "):])
	case bytes.Equal(t, []byte("Locked ownable synchronizers:")):
		p.owned = true
	}
}

// parseLock parses the text after "- ": `locked <0x00000000d75b1e48> (a
// java.util.TaskQueue)`, `waiting on <no object reference available>`, or under
// "Locked ownable synchronizers:" `<0x…> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)`
// and `None` (no lock).
func parseLock(s []byte, p *threadParser) (Lock, bool) {
	if bytes.Equal(s, []byte("None")) {
		return Lock{}, false
	}
	var l Lock
	open := bytes.IndexByte(s, '<')
	if open < 0 {
		l.Kind = p.text(bytes.TrimSpace(s))
		return l, true
	}
	l.Kind = p.text(bytes.TrimSpace(s[:open]))
	rest := s[open+1:]
	closeAt := bytes.IndexByte(rest, '>')
	if closeAt < 0 {
		return l, true
	}
	if addr := rest[:closeAt]; bytes.HasPrefix(addr, []byte("0x")) || looksHex(addr) {
		l.Address = jvmText(addr)
	}
	rest = bytes.TrimSpace(rest[closeAt+1:])
	if c, ok := bytes.CutPrefix(rest, []byte("(a ")); ok {
		l.Class = p.text(bytes.TrimSuffix(c, []byte(")")))
	}
	return l, true
}

// looksHex reports whether b is a bare hexadecimal address, as HP-UX prints them.
func looksHex(b []byte) bool {
	if len(b) < 6 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// text returns b as valid UTF-8, sharing one string per distinct value: frames and
// lock classes repeat across thousands of threads.
func (p *threadParser) text(b []byte) string {
	if s, ok := p.intern[string(b)]; ok {
		return s
	}
	if !p.lines.charge(2*int64(len(b)) + 64) { // the string, its key and map entry
		return ""
	}
	s := jvmText(b)
	if len(p.intern) < 1<<20 {
		p.intern[string(b)] = s
	}
	return s
}

// markDeadlocked flags the threads of d that a deadlock report names.
func markDeadlocked(d *ThreadDump) {
	if len(d.Deadlocks) == 0 {
		return
	}
	names := map[string]bool{}
	for _, dl := range d.Deadlocks {
		for _, t := range dl.Threads {
			names[t.Name] = true
		}
	}
	for i := range d.Threads {
		if names[d.Threads[i].Name] {
			d.Threads[i].Deadlocked = true
		}
	}
}

// What the thread parser charges beyond the text it keeps: a dump, a thread
// (with its share of a group) and a line of a thread (a frame's string header
// and place in the stack, or a lock), each with room for the slices' growth.
const (
	dumpCost   = 2 * int64(unsafe.Sizeof(ThreadDump{}))
	threadCost = 2*int64(unsafe.Sizeof(Thread{})) + 2*int64(unsafe.Sizeof(ThreadGroup{}))
	lineCost   = 2 * int64(unsafe.Sizeof(Lock{}))
	frameCost  = 2 * 16
)
