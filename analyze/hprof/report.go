package hprof

import (
	"fmt"
	"slices"
	"time"
	"unsafe"
)

// Object describes one object of the dump in a report.
type Object struct {
	Ordinal  uint32 `json:"ordinal"`
	ID       string `json:"id"` // "0x…"
	Class    string `json:"class"`
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
	// Text is the value of a java.lang.String, or the name of a thread.
	Text string `json:"text,omitempty"`
	// Children are the largest objects this one dominates (in Report.Dominators,
	// down to ReportOptions.Depth levels), and Dominated how many it dominates in all.
	Children  []Object `json:"children,omitempty"`
	Dominated int      `json:"dominated,omitempty"`
}

// ClassRow is one row of the class histogram.
type ClassRow struct {
	Name      string `json:"name"`
	Instances int64  `json:"instances"`
	Shallow   int64  `json:"shallow"`
	// Retained is what the class's instances retain together (an instance
	// dominated by another instance of the class counts once, in that one).
	Retained int64 `json:"retained"`
}

// PackageRow is the retained size of the objects of a package's classes (of their
// element classes for arrays; "" for primitive arrays).
type PackageRow struct {
	Package   string `json:"package"`
	Instances int64  `json:"instances"`
	Shallow   int64  `json:"shallow"`
	Retained  int64  `json:"retained"`
}

// DuplicateString is a string value held by several java.lang.String objects.
type DuplicateString struct {
	Text  string `json:"text"`
	Count int64  `json:"count"`
	// Wasted is the shallow size of the copies beyond the first (the String objects
	// and their value arrays).
	Wasted int64 `json:"wasted"`
}

// Frame is one frame of a thread's stack.
type Frame struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	Source string `json:"source,omitempty"`
	Line   int32  `json:"line"`
}

// String prints the frame as a Java stack trace line.
func (f Frame) String() string {
	loc := f.Source
	switch {
	case f.Line > 0 && loc != "":
		loc = fmt.Sprintf("%s:%d", loc, f.Line)
	case f.Line == -3:
		loc = "Native Method"
	case loc == "":
		loc = "Unknown Source"
	}
	return fmt.Sprintf("%s.%s(%s)", f.Class, f.Method, loc)
}

// Thread is a thread of the dump with what it retains.
type Thread struct {
	Name string `json:"name"`
	// Object is the thread object; its Retained counts, as Eclipse MAT's thread
	// rows do, what the thread keeps alive alone: what the thread object
	// dominates plus Locals.
	Object Object `json:"object"`
	// Locals is what the thread keeps alive by itself through the locals of its
	// stack: the objects only its stack roots and nothing outside them
	// references (a parked consumer thread's consumer).
	Locals int64 `json:"locals,omitempty"`
	// Stack is the top MaxStack frames of the thread's stack, StackDepth the
	// number of its frames.
	Stack      []Frame `json:"stack,omitempty"`
	StackDepth int     `json:"stack_depth,omitempty"`
}

// Step is one object on a path from a GC root: the root first.
type Step struct {
	Object Object `json:"object"`
	// Field is the field (or "[i]" element) of the previous step's object that
	// references this one; empty for the root.
	Field string `json:"field,omitempty"`
	// Root describes the GC root for the first step ("thread leak-3", "system class").
	Root string `json:"root,omitempty"`
	// Index is the step's position on the whole path (0 for the root): a path
	// keeps its first and last PathEnds steps, and where the indexes jump, the
	// steps between them are left out.
	Index int `json:"index"`
}

// Suspect is a leak suspect: top-level objects of one class (objects the GC roots
// dominate together) retaining at least the suspect share of the heap.
type Suspect struct {
	// Class and Instances are the top-level objects' class and count.
	Class     string `json:"class"`
	Instances int64  `json:"instances"`
	// Retained is what they retain together, Share its fraction of the reachable heap.
	Retained int64   `json:"retained"`
	Share    float64 `json:"share"`
	// Holder, HolderInstances and HolderRetained describe the accumulation points:
	// from each top-level object, down the dominator tree while one child holds 80%
	// of its parent's size (stopping above primitive arrays), the objects where the
	// memory accumulates; Holder is the class of most of them.
	Holder          string `json:"holder"`
	HolderInstances int64  `json:"holder_instances"`
	HolderRetained  int64  `json:"holder_retained"`
	// HolderShare is HolderRetained's fraction of the reachable heap: the
	// share the sentence gives.
	HolderShare float64 `json:"holder_share"`
	// Chain names the largest accumulation point by the field that holds it:
	// from the top-level object down the shortest path, "HeapLeak.CACHE" (a
	// static field), "java.util.HashMap", "java.util.HashMap$Node[]" (the
	// holder last); at most MaxChain steps, "…" where steps are left out.
	Chain []string `json:"chain,omitempty"`
	// Element is the class of what the largest accumulation point holds (of
	// the objects it dominates, the class retaining the most), ElementCount
	// how many of them it dominates, Payload the class those elements hold in
	// turn when it is another ("java.util.HashMap$Node" of "byte[]").
	Element      string `json:"element,omitempty"`
	ElementCount int64  `json:"element_count,omitempty"`
	Payload      string `json:"payload,omitempty"`
	// Accumulation is the largest accumulation point.
	Accumulation Object `json:"accumulation"`
	// Threads are the threads whose objects or stacks hold the top-level objects
	// (the first MaxHoldingThreads), ThreadCount how many there are.
	Threads     []string `json:"threads,omitempty"`
	ThreadCount int      `json:"thread_count,omitempty"`
	// Path is a shortest path from a GC root to Accumulation, over strong
	// references: its first and last PathEnds steps (Step.Index tells where
	// steps are left out), PathLength the number of its steps. The index
	// (WriteIndex) holds every step, paged by Index.PathSteps.
	Path       []Step `json:"path"`
	PathLength int    `json:"path_length"`
	// Sentence says it in one line, with class names in backticks.
	Sentence string `json:"sentence"`
}

// Report is what the dump says, in the order MAT shows it.
type Report struct {
	Version string    `json:"version"`
	IDSize  int       `json:"id_size"`
	Time    time.Time `json:"time"`
	Layout  Layout    `json:"layout"`
	Objects int64     `json:"objects"`
	Classes int       `json:"classes"`
	Roots   int       `json:"gc_roots"`
	// Shallow is the size of every object in the dump; Reachable the size of those a
	// strong path from a GC root reaches. Unreachable counts the others (reachable
	// only through weak, soft or phantom references, or garbage).
	Shallow            int64 `json:"shallow"`
	Reachable          int64 `json:"reachable"`
	UnreachableObjects int64 `json:"unreachable_objects"`
	UnreachableBytes   int64 `json:"unreachable_bytes"`
	Dangling           int64 `json:"dangling_references"`

	// Each list is capped (ReportOptions.Top, or Capped), and the count beside it
	// says how many there are in all: suspects, classes with instances,
	// top-level objects of the dominator tree, packages, groups of duplicate
	// strings (of the top 100 the heap keeps), threads.
	Suspects         []Suspect         `json:"suspects"`
	SuspectCount     int               `json:"suspect_count"`
	Histogram        []ClassRow        `json:"histogram"`
	HistogramCount   int               `json:"histogram_count"`
	Dominators       []Object          `json:"dominators"`
	DominatorCount   int               `json:"dominator_count"`
	Packages         []PackageRow      `json:"packages"`
	PackageCount     int               `json:"package_count"`
	DuplicateStrings []DuplicateString `json:"duplicate_strings"`
	DuplicateCount   int               `json:"duplicate_string_count"`
	Threads          []Thread          `json:"threads"`
	ThreadCount      int               `json:"thread_count"`
	// Native is what the objects hold outside the Java heap, with its own
	// suspects (ReportOptions.Native).
	Native *NativeMemory `json:"native_memory,omitempty"`
}

// Capped returns a copy of the report whose histogram, packages, threads and
// duplicate strings keep at most rows rows each (rows ≤ 0: all); their counts
// are unchanged.
func (r *Report) Capped(rows int) *Report {
	c := *r
	if rows > 0 {
		c.Histogram = r.Histogram[:min(len(r.Histogram), rows)]
		c.Packages = r.Packages[:min(len(r.Packages), rows)]
		c.Threads = r.Threads[:min(len(r.Threads), rows)]
		c.DuplicateStrings = r.DuplicateStrings[:min(len(r.DuplicateStrings), rows)]
	}
	return &c
}

// ReportOptions tune NewReport.
type ReportOptions struct {
	// SuspectShare is the smallest share of the reachable heap a suspect retains
	// (default 0.1).
	SuspectShare float64
	// Top caps the dominator tree's top level, the suspects, the threads and the
	// duplicate strings (default 25); the histogram and packages lists are
	// complete (Capped cuts them).
	Top int
	// Depth is how many levels below the top of the dominator tree the report keeps
	// (default 2; -1 for none), Fanout how many children per object (default 8).
	Depth, Fanout int
	// Native adds the native memory section (Report.Native).
	Native bool
}

// object describes ordinal o.
func (h *Heap) object(o uint32) Object {
	obj := Object{Ordinal: o, ID: fmt.Sprintf("0x%x", h.ids[o]), Class: h.ClassOf(o).Name,
		Shallow: h.ShallowSize(o), Retained: h.Retained(o)}
	if h.ClassOf(o).kind == objClass {
		obj.Text = h.className(o)
	}
	return obj
}

// named describes ordinal o with its text after the resolver ran: a string's
// value, a thread's name, a class object's name.
func (h *Heap) named(o uint32, res *resolver) Object {
	obj := h.object(o)
	if t, ok := res.textOf(o); ok {
		obj.Text = t
	}
	if name := res.threadName(o); name != "" {
		obj.Text = clip(name)
	}
	return obj
}

// className is "class NAME" for the class object o.
func (h *Heap) className(o uint32) string {
	if cn, ok := h.classByID[h.ids[o]]; ok {
		return "class " + h.Classes[cn].Name
	}
	return "class ?"
}

// NewReport analyzes the heap (Analyze) and builds its report, reading the dump
// once more for field names and string texts. What it holds beyond the heap's
// arrays (the walks' stacks, the suspects' members, the paths' fields) is
// charged to Options.Budget, and the report itself is bounded whatever the
// dump (see PathEnds, MaxName, MaxStack).
func (h *Heap) NewReport(opt ReportOptions, progress func(string, float64)) (*Report, error) {
	if opt.SuspectShare <= 0 {
		opt.SuspectShare = 0.1
	}
	if opt.Top <= 0 {
		opt.Top = 25
	}
	if opt.Depth == 0 {
		opt.Depth = 2
	}
	if opt.Fanout <= 0 {
		opt.Fanout = 8
	}
	defer h.setCall(progress)()
	if err := h.Analyze(nil); err != nil {
		return nil, err
	}
	// What a report before this one kept for the index is given back.
	h.mem.uncharge(h.pathsCharged)
	h.paths, h.pathsCharged, h.texts = nil, 0, nil
	free(&h.rs, h.pathVia)
	h.pathVia = nil
	charged := h.mem.used
	defer func() { h.mem.uncharge(h.mem.used - charged - h.pathsCharged - h.rs.chargeOf(h.pathVia)) }()
	n := uint32(len(h.ids))
	rep := &Report{Version: h.Version, IDSize: h.IDSize, Time: h.Time, Layout: h.Layout,
		Objects: int64(n), Classes: len(h.Classes), Roots: len(h.Roots),
		Reachable: h.TotalRetained(), Dangling: h.Dangling}
	if err := h.report(stageHistogram, 0, 0); err != nil {
		return nil, err
	}
	var err error
	var all objectCounts
	if rep.Histogram, rep.Packages, all, err = h.histogram(); err != nil {
		return nil, err
	}
	rep.Shallow, rep.UnreachableObjects, rep.UnreachableBytes = all.shallow, all.unreachable, all.unreachableBytes
	rep.HistogramCount, rep.PackageCount = len(rep.Histogram), len(rep.Packages)
	res := newResolver(h)
	top := h.Dominated(0, true)
	rep.DominatorCount = len(top)
	for _, o := range top[:min(len(top), opt.Top)] {
		rep.Dominators = append(rep.Dominators, h.subtree(o, opt.Depth, opt.Fanout, res))
	}
	if err := h.report(stageSuspects, 0, 0); err != nil {
		return nil, err
	}
	threads, threadCount, locals, err := h.threadList(opt.Top, res)
	if err != nil {
		return nil, err
	}
	suspects, suspectCount, err := h.suspects(opt.SuspectShare, opt.Top, res)
	if err != nil {
		return nil, err
	}
	dups := h.wantDuplicates(opt.Top, res)
	if err := h.report(stageNames, 0, 0); err != nil {
		return nil, err
	}
	// Every object's step on its shortest path, for the index: its field.
	if res.all, err = makeArray[uint32](&h.rs, int(n), held, "the fields of the paths"); err != nil {
		return nil, err
	}
	for o := range res.all {
		res.all[o] = viaUnknown
	}
	if err := res.run(); err != nil {
		free(&h.rs, res.all)
		return nil, err
	}
	h.pathVia = res.all
	for i := range rep.Dominators {
		h.nameTree(&rep.Dominators[i], res)
	}
	rep.Threads, rep.ThreadCount = h.finishThreads(threads, locals, res), threadCount
	rep.Suspects, rep.SuspectCount = h.finishSuspects(suspects, res), suspectCount
	rep.DuplicateStrings, rep.DuplicateCount = finishDuplicates(dups, res), len(h.dups)
	h.texts = reportTexts(rep)
	h.paths = h.indexPaths(suspects, res)
	if opt.Native {
		if err := h.report(stageNative, 0, 0); err != nil {
			return nil, err
		}
		rep.Native = h.nativeMemory(opt.SuspectShare)
	}
	return rep, nil
}

// reportTexts are the texts of the objects a report shows, by ordinal, for the
// index (WriteIndex).
func reportTexts(rep *Report) map[uint32]string {
	texts := map[uint32]string{}
	var add func(o *Object)
	add = func(o *Object) {
		if o.Text != "" {
			texts[o.Ordinal] = o.Text
		}
		for i := range o.Children {
			add(&o.Children[i])
		}
	}
	for i := range rep.Dominators {
		add(&rep.Dominators[i])
	}
	for i := range rep.Threads {
		add(&rep.Threads[i].Object)
	}
	for i := range rep.Suspects {
		add(&rep.Suspects[i].Accumulation)
		for j := range rep.Suspects[i].Path {
			add(&rep.Suspects[i].Path[j].Object)
		}
	}
	return texts
}

// histogram counts instances, shallow and retained sizes per class and package. The
// retained size of a class is what its instances retain together: a walk of the
// dominator tree adds an instance's retained size only when no dominator of it is of
// the same class (and likewise per package).
//
// It also gives the shallow size of all the objects and the unreachable ones
// and their size, from the counts Analyze made (countObjects).
func (h *Heap) histogram() ([]ClassRow, []PackageRow, objectCounts, error) {
	rows := make([]ClassRow, len(h.Classes))
	pkgIndex := map[string]int{}
	pkgOf := make([]int, len(h.Classes))
	var pkgs []PackageRow
	for i, c := range h.Classes {
		rows[i].Name = c.Name
		p := c.Package()
		j, ok := pkgIndex[p]
		if !ok {
			j = len(pkgs)
			pkgIndex[p] = j
			pkgs = append(pkgs, PackageRow{Package: p})
		}
		pkgOf[i] = j
	}
	all, err := h.countObjects()
	if err != nil {
		return nil, nil, all, err
	}
	for cn := range rows {
		rows[cn].Instances, rows[cn].Shallow = all.instances[cn], all.byClass[cn]
		pkgs[pkgOf[cn]].Instances += all.instances[cn]
		pkgs[pkgOf[cn]].Shallow += all.byClass[cn]
	}
	all.instances, all.byClass = nil, nil
	if err := h.mem.charge(4*int64(len(h.Classes)+len(pkgs)), "the histogram"); err != nil {
		return nil, nil, all, err
	}
	activeClass := make([]uint32, len(h.Classes))
	activePkg := make([]uint32, len(pkgs))
	n := uint32(len(h.ids))
	// The walk reads the tree, the classes and the retained sizes at random.
	rs := &h.rs
	for _, err := range []error{hold(rs, h.domKids.offsets), hold(rs, h.domKids.targets), hold(rs, h.class), hold(rs, h.retained)} {
		if err != nil {
			return nil, nil, all, err
		}
	}
	defer func() {
		release(rs, h.domKids.offsets)
		release(rs, h.domKids.targets)
		release(rs, h.class)
		release(rs, h.retained)
	}()
	stack, err := newDeepStack[dfsFrame](rs, int(n)+1, "the walk of the dominator tree")
	if err != nil {
		return nil, nil, all, err
	}
	defer stack.free()
	if err := stack.push(dfsFrame{o: n}); err != nil {
		return nil, nil, all, err
	}
	walked := 0
	for len(stack.g.s) > 0 {
		top := &stack.g.s[len(stack.g.s)-1]
		row := h.domKids.row(top.o)
		if int(top.next) >= len(row) {
			if top.o != n {
				cn := h.class[top.o]
				activeClass[cn]--
				activePkg[pkgOf[cn]]--
			}
			stack.pop()
			continue
		}
		o := row[top.next]
		top.next++
		cn := h.class[o]
		if activeClass[cn] == 0 {
			rows[cn].Retained += h.Retained(o)
		}
		if activePkg[pkgOf[cn]] == 0 {
			pkgs[pkgOf[cn]].Retained += h.Retained(o)
		}
		activeClass[cn]++
		activePkg[pkgOf[cn]]++
		if err := stack.push(dfsFrame{o: o}); err != nil {
			return nil, nil, all, err
		}
		if walked++; walked&cancelCheckMask == 0 {
			if err := h.report(stageHistogram, 0.3+0.7*float64(walked)/float64(n), 0); err != nil {
				return nil, nil, all, err
			}
		}
	}
	for cn := range rows {
		if cn < len(h.classStats) {
			h.classStats[cn].retained = rows[cn].Retained
		}
	}
	out := rows[:0]
	merged := map[string]int{}
	for _, r := range rows {
		if r.Instances == 0 {
			continue
		}
		if i, ok := merged[r.Name]; ok { // one name loaded by several class loaders
			out[i].Instances += r.Instances
			out[i].Shallow += r.Shallow
			out[i].Retained += r.Retained
			continue
		}
		merged[r.Name] = len(out)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b ClassRow) int { return cmpDesc(a.Retained, b.Retained, a.Shallow, b.Shallow) })
	pout := pkgs[:0]
	for _, p := range pkgs {
		if p.Instances > 0 {
			pout = append(pout, p)
		}
	}
	slices.SortStableFunc(pout, func(a, b PackageRow) int { return cmpDesc(a.Retained, b.Retained, a.Shallow, b.Shallow) })
	return out, pout, all, nil
}

func cmpDesc(a1, b1, a2, b2 int64) int {
	switch {
	case a1 > b1:
		return -1
	case a1 < b1:
		return 1
	case a2 > b2:
		return -1
	case a2 < b2:
		return 1
	}
	return 0
}

// threadList keeps the top thread objects by what each keeps alive alone (its
// retained size and its locals, localsAlone) and asks for their names; count is
// how many there are.
func (h *Heap) threadList(top int, res *resolver) (kept []Root, count int, locals map[uint32]int64, err error) {
	for _, r := range h.Roots {
		if r.Kind == RootThreadObject {
			count++
		}
	}
	if err := h.mem.charge(int64(count)*int64(unsafe.Sizeof(Root{})), "the threads"); err != nil {
		// The threads are listed within the budget or not at all.
		return nil, count, nil, nil
	}
	if locals, err = h.localsAlone(); err != nil {
		return nil, count, nil, err
	}
	all := make([]Root, 0, count)
	for _, r := range h.Roots {
		if r.Kind == RootThreadObject {
			all = append(all, r)
		}
	}
	alone := func(o uint32) int64 { return h.Retained(o) + locals[o] }
	slices.SortStableFunc(all, func(a, b Root) int { return cmpDesc(alone(a.Ordinal), alone(b.Ordinal), 0, 0) })
	kept = slices.Clone(all[:min(len(all), top)])
	for _, r := range kept {
		res.wantName(r.Ordinal)
	}
	return kept, count, locals, nil
}

func (h *Heap) finishThreads(roots []Root, locals map[uint32]int64, res *resolver) []Thread {
	var out []Thread
	for _, r := range roots {
		t := Thread{Name: res.threadName(r.Ordinal), Object: h.object(r.Ordinal), Locals: locals[r.Ordinal]}
		t.Object.Retained += t.Locals
		if t.Name == "" {
			t.Name = fmt.Sprintf("thread #%d", r.Thread)
		}
		t.Name = clip(t.Name)
		t.Object.Text = t.Name
		if tr, ok := h.traces[r.trace]; ok {
			t.StackDepth = len(tr.frames)
			for _, fid := range tr.frames[:min(len(tr.frames), MaxStack)] {
				f, ok := h.frames[fid]
				if !ok {
					continue
				}
				cls := "?"
				if cid, ok := h.serials[f.classSerial]; ok {
					if cn, ok := h.classByID[cid]; ok {
						cls = h.Classes[cn].Name
					} else if nid, ok := h.loadNames[cid]; ok {
						cls = clip(javaName(h.names[nid]))
					}
				}
				t.Stack = append(t.Stack, Frame{Class: cls, Method: clip(h.names[f.method]), Source: clip(h.names[f.source]), Line: f.line})
			}
		}
		out = append(out, t)
	}
	return out
}

// subtree describes o with its largest dominated objects, depth levels down.
func (h *Heap) subtree(o uint32, depth, fanout int, res *resolver) Object {
	obj := h.object(o)
	res.wantName(o)
	kids := h.domKids.row(o)
	obj.Dominated = len(kids)
	if depth > 0 {
		for _, k := range kids[:min(len(kids), fanout)] {
			obj.Children = append(obj.Children, h.subtree(k, depth-1, fanout, res))
		}
	}
	return obj
}

// nameTree fills in the texts of a subtree after the resolver ran: string
// values and thread names.
func (h *Heap) nameTree(obj *Object, res *resolver) {
	if t, ok := res.textOf(obj.Ordinal); ok {
		obj.Text = t
	}
	if name := res.threadName(obj.Ordinal); name != "" {
		obj.Text = clip(name)
	}
	for i := range obj.Children {
		h.nameTree(&obj.Children[i], res)
	}
}

// chargedStack is a stack whose growth is charged to a meter before it
// allocates; release gives it back.
type chargedStack[T any] struct {
	s       []T
	m       *meter
	what    string
	charged int64
}

// free drops the stack and gives back its charge.
func (c *chargedStack[T]) free() {
	c.m.uncharge(c.charged)
	c.charged, c.s = 0, nil
}

func (c *chargedStack[T]) push(v T) error {
	if len(c.s) == cap(c.s) {
		grow := max(cap(c.s), 64)
		var zero T
		bytes := int64(grow) * int64(unsafe.Sizeof(zero))
		if err := c.m.charge(bytes, c.what); err != nil {
			return err
		}
		c.charged += bytes
		c.s = slices.Grow(c.s, grow)
	}
	c.s = append(c.s, v)
	return nil
}
