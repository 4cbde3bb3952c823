package hprof

import (
	"fmt"
	"slices"
	"time"
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
	Name   string  `json:"name"`
	Object Object  `json:"object"`
	Stack  []Frame `json:"stack,omitempty"`
}

// Step is one object on a path from a GC root: the root first.
type Step struct {
	Object Object `json:"object"`
	// Field is the field (or "[i]" element) of the previous step's object that
	// references this one; empty for the root.
	Field string `json:"field,omitempty"`
	// Root describes the GC root for the first step ("thread leak-3", "system class").
	Root string `json:"root,omitempty"`
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
	// Accumulation is the largest accumulation point.
	Accumulation Object `json:"accumulation"`
	// Threads are the threads whose objects or stacks hold the top-level objects.
	Threads []string `json:"threads,omitempty"`
	// Path is a shortest path from a GC root to Accumulation, over strong references.
	Path []Step `json:"path"`
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

	Suspects         []Suspect         `json:"suspects"`
	Histogram        []ClassRow        `json:"histogram"`
	Dominators       []Object          `json:"dominators"`
	Packages         []PackageRow      `json:"packages"`
	DuplicateStrings []DuplicateString `json:"duplicate_strings"`
	Threads          []Thread          `json:"threads"`
}

// ReportOptions tune NewReport.
type ReportOptions struct {
	// SuspectShare is the smallest share of the reachable heap a suspect retains
	// (default 0.1).
	SuspectShare float64
	// Top caps the dominator tree's top level and the lists (default 25); the
	// histogram and packages lists are complete.
	Top int
	// Depth is how many levels below the top of the dominator tree the report keeps
	// (default 2; -1 for none), Fanout how many children per object (default 8).
	Depth, Fanout int
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

// className is "class NAME" for the class object o.
func (h *Heap) className(o uint32) string {
	if cn, ok := h.classByID[h.ids[o]]; ok {
		return "class " + h.Classes[cn].Name
	}
	return "class ?"
}

// NewReport analyzes the heap (Analyze) and builds its report, reading the dump
// once more for field names and string texts.
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
	if progress == nil {
		progress = func(string, float64) {}
	}
	if err := h.Analyze(progress); err != nil {
		return nil, err
	}
	n := uint32(len(h.ids))
	rep := &Report{Version: h.Version, IDSize: h.IDSize, Time: h.Time, Layout: h.Layout,
		Objects: int64(n), Classes: len(h.Classes), Roots: len(h.Roots),
		Reachable: h.TotalRetained(), Dangling: h.Dangling}
	for o := uint32(0); o < n; o++ {
		s := h.ShallowSize(o)
		rep.Shallow += s
		if !h.Reachable(o) {
			rep.UnreachableObjects++
			rep.UnreachableBytes += s
		}
	}
	progress("histogram", 0)
	if err := h.stopped(); err != nil {
		return nil, err
	}
	rep.Histogram, rep.Packages = h.histogram()
	res := newResolver(h)
	top := h.Dominated(0, true)
	for _, o := range top[:min(len(top), opt.Top)] {
		rep.Dominators = append(rep.Dominators, h.subtree(o, opt.Depth, opt.Fanout, res))
	}
	progress("suspects", 0)
	if err := h.stopped(); err != nil {
		return nil, err
	}
	threads := h.threadList(res)
	suspects := h.suspects(opt.SuspectShare, res)
	dups := h.wantDuplicates(opt.Top, res)
	progress("names", 0)
	if err := h.stopped(); err != nil {
		return nil, err
	}
	if err := res.run(); err != nil {
		return nil, err
	}
	for i := range rep.Dominators {
		h.nameTree(&rep.Dominators[i], res, nil)
	}
	rep.Threads = h.finishThreads(threads, res)
	names := map[uint32]string{}
	for _, t := range rep.Threads {
		names[t.Object.Ordinal] = t.Name
	}
	for i := range rep.Dominators {
		h.nameTree(&rep.Dominators[i], res, names)
	}
	rep.Suspects = h.finishSuspects(suspects, res, names)
	rep.DuplicateStrings = finishDuplicates(dups, res)
	h.texts = reportTexts(rep)
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
func (h *Heap) histogram() ([]ClassRow, []PackageRow) {
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
	for o, cn := range h.class {
		s := h.ShallowSize(uint32(o))
		rows[cn].Instances++
		rows[cn].Shallow += s
		pkgs[pkgOf[cn]].Instances++
		pkgs[pkgOf[cn]].Shallow += s
	}
	activeClass := make([]uint32, len(h.Classes))
	activePkg := make([]uint32, len(pkgs))
	n := uint32(len(h.ids))
	type frame struct{ o, next uint32 }
	stack := []frame{{o: n}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		row := h.domKids.row(top.o)
		if int(top.next) >= len(row) {
			if top.o != n {
				cn := h.class[top.o]
				activeClass[cn]--
				activePkg[pkgOf[cn]]--
			}
			stack = stack[:len(stack)-1]
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
		stack = append(stack, frame{o: o})
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
	return out, pout
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

// threadList lists the thread objects (by serial) and asks for their names.
func (h *Heap) threadList(res *resolver) []Root {
	var out []Root
	for _, r := range h.Roots {
		if r.Kind == RootThreadObject {
			out = append(out, r)
		}
	}
	for _, t := range h.threads {
		if t.name != noObject {
			res.wantText(t.name)
		}
	}
	return out
}

func (h *Heap) threadName(obj uint32, res *resolver) string {
	i, ok := slicesSearch(len(h.threads), func(i int) bool { return h.threads[i].obj >= obj })
	if ok && h.threads[i].obj == obj && h.threads[i].name != noObject {
		if t, ok := res.textOf(h.threads[i].name); ok {
			return t
		}
	}
	return ""
}

func (h *Heap) finishThreads(roots []Root, res *resolver) []Thread {
	var out []Thread
	for _, r := range roots {
		t := Thread{Name: h.threadName(r.Ordinal, res), Object: h.object(r.Ordinal)}
		if t.Name == "" {
			t.Name = fmt.Sprintf("thread #%d", r.Thread)
		}
		t.Object.Text = t.Name
		if tr, ok := h.traces[r.trace]; ok {
			for _, fid := range tr.frames {
				f, ok := h.frames[fid]
				if !ok {
					continue
				}
				cls := "?"
				if cid, ok := h.serials[f.classSerial]; ok {
					if cn, ok := h.classByID[cid]; ok {
						cls = h.Classes[cn].Name
					} else if nid, ok := h.loadNames[cid]; ok {
						cls = javaName(h.names[nid])
					}
				}
				t.Stack = append(t.Stack, Frame{Class: cls, Method: h.names[f.method], Source: h.names[f.source], Line: f.line})
			}
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b Thread) int { return cmpDesc(a.Object.Retained, b.Object.Retained, 0, 0) })
	return out
}

// subtree describes o with its largest dominated objects, depth levels down.
func (h *Heap) subtree(o uint32, depth, fanout int, res *resolver) Object {
	obj := h.object(o)
	res.wantText(o)
	kids := h.domKids.row(o)
	obj.Dominated = len(kids)
	if depth > 0 {
		for _, k := range kids[:min(len(kids), fanout)] {
			obj.Children = append(obj.Children, h.subtree(k, depth-1, fanout, res))
		}
	}
	return obj
}

// nameTree fills in the texts of a subtree: string values after the resolver ran,
// and thread names when names is given.
func (h *Heap) nameTree(obj *Object, res *resolver, names map[uint32]string) {
	if t, ok := res.textOf(obj.Ordinal); ok {
		obj.Text = t
	}
	if name, ok := names[obj.Ordinal]; ok {
		obj.Text = name
	}
	for i := range obj.Children {
		h.nameTree(&obj.Children[i], res, names)
	}
}
