package hprof

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// The views of an index of version 3 that Eclipse MAT's users reach for after
// the dominator tree: the tree grouped by class and by class loader, the
// shortest paths to the GC roots without weak and soft references, the
// objects not strongly reachable by class, and the classes loaded by more than
// one loader. Each is read from the index, a page at a time; an index of an
// older version answers ErrInvalidParameter (its report was made before the
// views were stored).

// maxGroupChildren is how many children of one object ChildrenByClass groups:
// it reads each one's record.
const maxGroupChildren = 1 << 20

// maxPathWalk is how many steps up a path PathPage walks to reach a page.
const maxPathWalk = 1 << 22

// IndexSummary is what an index says of its dump as a whole.
type IndexSummary struct {
	Version int       `json:"version"`
	Time    time.Time `json:"time,omitzero"`
	IDSize  int       `json:"id_size,omitempty"`
	Objects int64     `json:"objects"`
	Classes int       `json:"classes"`
	Roots   int       `json:"gc_roots,omitempty"`
	// Shallow is the size of every object; Reachable the size of those a
	// strong path from a GC root reaches, ReachableObjects their count.
	Shallow          int64 `json:"shallow,omitempty"`
	Reachable        int64 `json:"reachable"`
	ReachableObjects int64 `json:"reachable_objects"`
}

// Summary is the index's dump as a whole (Time, IDSize, Roots and Shallow
// are 0 in an index older than version 3).
func (x *Index) Summary() IndexSummary {
	s := IndexSummary{Version: int(x.hd.Version), Objects: int64(x.hd.Objects), Classes: int(x.hd.Classes),
		Reachable: int64(x.hd.TotalRetained), ReachableObjects: int64(x.hd.Reachable)}
	if x.hd.Version >= 3 {
		s.Time, s.IDSize, s.Roots, s.Shallow = time.UnixMilli(x.hd.TimeMillis).UTC(), int(x.hd.IDSize), int(x.hd.Roots), int64(x.hd.Shallow)
	}
	return s
}

// needVersion3 is the error of a view an index older than version 3 does not
// hold.
func (x *Index) needVersion3() error {
	if x.hd.Version >= 3 {
		return nil
	}
	return fmt.Errorf("%w: the index is of version %d, made before the views were stored (analyze the dump again)", analyze.ErrInvalidParameter, x.hd.Version)
}

// classInfo is one decoded entry of the classInfo section.
type classInfo struct {
	loader, object uint32
	reach          [4]NativeCount
	retained       int64
}

// instances counts all the class's objects; shallow is their size.
func (c *classInfo) instances() (count, shallow int64) {
	for _, r := range c.reach {
		count += r.Count
		shallow += r.Bytes
	}
	return count, shallow
}

// classInfos reads the classInfo section (a few dozen bytes a class).
func (x *Index) classInfos() ([]classInfo, error) {
	if err := x.needVersion3(); err != nil {
		return nil, err
	}
	b := make([]byte, x.hd.ClassInfo.Length)
	if err := x.readAt(b, x.hd.ClassInfo.Offset); err != nil {
		return nil, err
	}
	out := make([]classInfo, x.hd.Classes)
	for i := range out {
		e := b[i*classEntry:]
		c := classInfo{loader: le.Uint32(e), object: le.Uint32(e[4:]), retained: int64(le.Uint64(e[72:]))}
		for r := range c.reach {
			c.reach[r] = NativeCount{Count: int64(le.Uint64(e[8+16*r:])), Bytes: int64(le.Uint64(e[16+16*r:]))}
			if c.reach[r].Count < 0 || c.reach[r].Bytes < 0 || uint64(c.reach[r].Count) > x.hd.Objects {
				return nil, malformedIndex("class %d's counts", i)
			}
		}
		if c.loader != noObject && uint64(c.loader) >= x.hd.Objects || c.object != noObject && uint64(c.object) >= x.hd.Objects {
			return nil, malformedIndex("class %d's loader %d or object %d of %d objects", i, c.loader, c.object, x.hd.Objects)
		}
		out[i] = c
	}
	return out, nil
}

// Histogram is the class histogram: instances, shallow size and what the
// instances of each class retain together, classes of one name (loaded by
// several loaders) added up, largest retained first, as NewReport makes it.
func (x *Index) Histogram() ([]ClassRow, error) {
	infos, err := x.classInfos()
	if err != nil {
		return nil, err
	}
	var out []ClassRow
	at := map[string]int{}
	for i, c := range infos {
		n, shallow := c.instances()
		if n == 0 {
			continue
		}
		name := x.classes[i]
		j, ok := at[name]
		if !ok {
			j = len(out)
			at[name] = j
			out = append(out, ClassRow{Name: name})
		}
		out[j].Instances += n
		out[j].Shallow += shallow
		out[j].Retained += max(c.retained, 0)
	}
	slices.SortStableFunc(out, func(a, b ClassRow) int { return cmpDesc(a.Retained, b.Retained, a.Shallow, b.Shallow) })
	return out, nil
}

// ClassGroup is the objects of one class at one level of the dominator tree
// (the top level, or the children of one object): how many, their shallow
// size and what they retain together. Class is the class's number in the
// index, for ClassGroupMembers.
type ClassGroup struct {
	Name     string `json:"class"`
	Class    int    `json:"class_index"`
	Objects  int64  `json:"objects"`
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
}

// topGroup is one decoded entry of the topGroups section.
type indexGroup struct {
	ClassGroup
	first uint32
}

// groups reads the topGroups section.
func (x *Index) groups() ([]indexGroup, error) {
	if err := x.needVersion3(); err != nil {
		return nil, err
	}
	b := make([]byte, x.hd.TopGroups.Length)
	if err := x.readAt(b, x.hd.TopGroups.Offset); err != nil {
		return nil, err
	}
	members := x.hd.TopMembers.Length / 4
	out := make([]indexGroup, 0, len(b)/groupEntry)
	for i := 0; i < len(b); i += groupEntry {
		cls, count, first := le.Uint32(b[i:]), le.Uint32(b[i+4:]), le.Uint32(b[i+8:])
		if cls >= x.hd.Classes || uint64(first)+uint64(count) > members {
			return nil, malformedIndex("top-level group %d: class %d, objects %d–%d of %d", len(out), cls, first, uint64(first)+uint64(count), members)
		}
		out = append(out, indexGroup{ClassGroup: ClassGroup{Name: x.classes[cls], Class: int(cls), Objects: int64(count),
			Shallow: int64(le.Uint64(b[i+16:])), Retained: int64(le.Uint64(b[i+24:]))}, first: first})
	}
	return out, nil
}

// page checks a page's offset and limit, and cuts list to it.
func page[T any](list []T, offset, limit int) ([]T, error) {
	if offset < 0 || limit < 0 {
		return nil, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	if offset >= len(list) {
		return []T{}, nil
	}
	return list[offset:min(len(list), offset+limit)], nil
}

// DominatorsByClass is the top level of the dominator tree grouped by class
// (MAT's "Group by class"), largest retained first, from offset, at most
// limit groups, and how many there are.
func (x *Index) DominatorsByClass(offset, limit int) ([]ClassGroup, int, error) {
	gs, err := x.groups()
	if err != nil {
		return nil, 0, err
	}
	p, err := page(gs, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ClassGroup, len(p))
	for i, g := range p {
		out[i] = g.ClassGroup
	}
	return out, len(gs), nil
}

// ClassGroupMembers are the top-level objects of class (a ClassGroup's
// Class), largest retained first, from offset, at most limit, with how many
// there are.
func (x *Index) ClassGroupMembers(class, offset, limit int) ([]Object, int, error) {
	gs, err := x.groups()
	if err != nil {
		return nil, 0, err
	}
	i := slices.IndexFunc(gs, func(g indexGroup) bool { return g.Class == class })
	if i < 0 {
		return nil, 0, fmt.Errorf("%w: no top-level objects of class %d", analyze.ErrInvalidParameter, class)
	}
	g := gs[i]
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	total := int(g.Objects)
	if offset >= total || limit == 0 {
		return []Object{}, total, nil
	}
	k := min(limit, total-offset)
	b := make([]byte, 4*k)
	if err := x.readAt(b, x.hd.TopMembers.Offset+4*(uint64(g.first)+uint64(offset))); err != nil {
		return nil, 0, err
	}
	out := make([]Object, 0, k)
	for j := range k {
		o := le.Uint32(b[4*j:])
		if uint64(o) >= x.hd.Objects {
			return nil, 0, malformedIndex("top-level object %d of %d", o, x.hd.Objects)
		}
		obj, err := x.Object(o)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, obj)
	}
	return out, total, nil
}

// ChildrenByClass groups the objects node immediately dominates by class,
// largest retained first (IndexRoot: DominatorsByClass), from offset, at
// most limit groups, with how many there are. It reads every child's record:
// an object that dominates more than 1,048,576 is an ErrInvalidParameter
// error (page its children instead).
func (x *Index) ChildrenByClass(node uint32, offset, limit int) ([]ClassGroup, int, error) {
	if node == IndexRoot {
		return x.DominatorsByClass(offset, limit)
	}
	o, err := x.node(node)
	if err != nil {
		return nil, 0, err
	}
	rec, err := x.record(o)
	if err != nil {
		return nil, 0, err
	}
	total := int(rec.kidsEnd - rec.kidsStart)
	if total > maxGroupChildren {
		return nil, 0, fmt.Errorf("%w: object %d dominates %d objects, more than the %d a grouping reads: page its children", analyze.ErrInvalidParameter, node, total, maxGroupChildren)
	}
	at := map[uint32]int{}
	var groups []ClassGroup
	const chunk = 4096
	for from := 0; from < total; from += chunk {
		k := min(chunk, total-from)
		b := make([]byte, 4*k)
		if err := x.readAt(b, x.hd.Kids.Offset+4*(uint64(rec.kidsStart)+uint64(from))); err != nil {
			return nil, 0, err
		}
		for j := range k {
			c := le.Uint32(b[4*j:])
			if uint64(c) >= x.hd.Objects {
				return nil, 0, malformedIndex("child %d of object %d is %d of %d objects", from+j, o, c, x.hd.Objects)
			}
			crec, err := x.record(c)
			if err != nil {
				return nil, 0, err
			}
			i, ok := at[crec.class]
			if !ok {
				i = len(groups)
				at[crec.class] = i
				groups = append(groups, ClassGroup{Name: x.classes[crec.class], Class: int(crec.class)})
			}
			groups[i].Objects++
			groups[i].Shallow += crec.shallow
			groups[i].Retained += int64(crec.retained)
		}
	}
	slices.SortStableFunc(groups, func(a, b ClassGroup) int { return cmpDesc(a.Retained, b.Retained, a.Objects, b.Objects) })
	p, err := page(groups, offset, limit)
	return p, len(groups), err
}

// LoaderGroup is the top-level objects of the classes one class loader
// loaded: the loader (Loader's Ordinal is IndexRoot for the bootstrap
// loader, which is no object), how many classes of those objects it loaded,
// and the objects' count, shallow size and what they retain together.
type LoaderGroup struct {
	Loader   Object `json:"loader"`
	Classes  int    `json:"classes"`
	Objects  int64  `json:"objects"`
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
}

// bootstrapLoader describes the bootstrap loader, which has no object.
var bootstrapLoader = Object{Ordinal: IndexRoot, Class: "<bootstrap class loader>"}

// loaderObject describes loader o (noObject for the bootstrap loader).
func (x *Index) loaderObject(o uint32) (Object, error) {
	if o == noObject {
		return bootstrapLoader, nil
	}
	return x.Object(o)
}

// DominatorsByLoader is the top level of the dominator tree grouped by the
// class loader of each object's class (MAT's "Group by class loader"),
// largest retained first, from offset, at most limit groups, and how many
// there are.
func (x *Index) DominatorsByLoader(offset, limit int) ([]LoaderGroup, int, error) {
	gs, err := x.groups()
	if err != nil {
		return nil, 0, err
	}
	infos, err := x.classInfos()
	if err != nil {
		return nil, 0, err
	}
	type acc struct {
		loader                     uint32
		classes                    int
		objects, shallow, retained int64
	}
	at := map[uint32]int{}
	var loaders []acc
	for _, g := range gs {
		l := infos[g.Class].loader
		i, ok := at[l]
		if !ok {
			i = len(loaders)
			at[l] = i
			loaders = append(loaders, acc{loader: l})
		}
		a := &loaders[i]
		a.classes++
		a.objects += g.Objects
		a.shallow += g.Shallow
		a.retained += g.Retained
	}
	slices.SortStableFunc(loaders, func(a, b acc) int { return cmpDesc(a.retained, b.retained, a.objects, b.objects) })
	p, err := page(loaders, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]LoaderGroup, 0, len(p))
	for _, a := range p {
		obj, err := x.loaderObject(a.loader)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, LoaderGroup{Loader: obj, Classes: a.classes, Objects: a.objects, Shallow: a.shallow, Retained: a.retained})
	}
	return out, len(loaders), nil
}

// LoaderClasses are the top-level groups (by class) of the classes that
// loader loaded (its ordinal, IndexRoot for the bootstrap loader), largest
// retained first, from offset, at most limit, with how many there are.
func (x *Index) LoaderClasses(loader uint32, offset, limit int) ([]ClassGroup, int, error) {
	gs, err := x.groups()
	if err != nil {
		return nil, 0, err
	}
	infos, err := x.classInfos()
	if err != nil {
		return nil, 0, err
	}
	if loader == IndexRoot {
		loader = noObject
	}
	var out []ClassGroup
	for _, g := range gs {
		if infos[g.Class].loader == loader {
			out = append(out, g.ClassGroup)
		}
	}
	p, err := page(out, offset, limit)
	return p, len(out), err
}

// UnreachableClass is how many objects of one class (classes of one name
// added up) are not strongly reachable, by how they are reached, and what
// they take.
type UnreachableClass struct {
	Class string `json:"class"`
	// Weak: only through soft or weak references; PendingCleanup: only from
	// finalizer or cleaner queues; Unreachable: not at all (garbage a dump
	// taken with -all keeps).
	Weak           NativeCount `json:"weak"`
	PendingCleanup NativeCount `json:"pending_cleanup"`
	Unreachable    NativeCount `json:"unreachable"`
	// Objects and Shallow add the three up.
	Objects int64 `json:"objects"`
	Shallow int64 `json:"shallow"`
}

// Unreachable are the objects that no strong path from a GC root reaches,
// summarised by class (MAT's "Unreachable Objects Histogram", which a dump
// keeps until a GC), largest shallow size first, from offset, at most limit,
// with how many classes there are and the totals of all of them.
func (x *Index) Unreachable(offset, limit int) (rows []UnreachableClass, total int, all UnreachableClass, err error) {
	infos, err := x.classInfos()
	if err != nil {
		return nil, 0, all, err
	}
	at := map[string]int{}
	var out []UnreachableClass
	for i, c := range infos {
		if c.reach[Weak].Count+c.reach[PendingCleanup].Count+c.reach[Unreachable].Count == 0 {
			continue
		}
		name := x.classes[i]
		j, ok := at[name]
		if !ok {
			j = len(out)
			at[name] = j
			out = append(out, UnreachableClass{Class: name})
		}
		row := &out[j]
		for _, r := range []struct {
			to *NativeCount
			of Reachability
		}{{&row.Weak, Weak}, {&row.PendingCleanup, PendingCleanup}, {&row.Unreachable, Unreachable}} {
			r.to.Count += c.reach[r.of].Count
			r.to.Bytes += c.reach[r.of].Bytes
			row.Objects += c.reach[r.of].Count
			row.Shallow += c.reach[r.of].Bytes
		}
	}
	all.Class = "all"
	for _, r := range out {
		all.Weak.Count += r.Weak.Count
		all.Weak.Bytes += r.Weak.Bytes
		all.PendingCleanup.Count += r.PendingCleanup.Count
		all.PendingCleanup.Bytes += r.PendingCleanup.Bytes
		all.Unreachable.Count += r.Unreachable.Count
		all.Unreachable.Bytes += r.Unreachable.Bytes
		all.Objects += r.Objects
		all.Shallow += r.Shallow
	}
	slices.SortStableFunc(out, func(a, b UnreachableClass) int { return cmpDesc(a.Shallow, b.Shallow, a.Objects, b.Objects) })
	p, err := page(out, offset, limit)
	return p, len(out), all, err
}

// DuplicateClass is a class name that more than one class loader loaded.
type DuplicateClass struct {
	Class   string        `json:"class"`
	Loaders []ClassLoader `json:"loaders"`
	// Instances counts the objects of all of them.
	Instances int64 `json:"instances"`
}

// ClassLoader is one loader of a duplicate class, and its class's objects.
type ClassLoader struct {
	Loader    Object `json:"loader"`
	Instances int64  `json:"instances"`
}

// maxDuplicateLoaders is how many loaders a DuplicateClass lists.
const maxDuplicateLoaders = 32

// DuplicateClasses are the class names loaded by more than one class loader
// (MAT's "Duplicate Classes": a class loader leak keeps loading them), most
// loaders first, from offset, at most limit, with how many there are. Each
// lists at most 32 of its loaders.
func (x *Index) DuplicateClasses(offset, limit int) ([]DuplicateClass, int, error) {
	infos, err := x.classInfos()
	if err != nil {
		return nil, 0, err
	}
	type entry struct {
		name    string
		loaders []int // class numbers
	}
	byName := map[string]*entry{}
	var names []*entry
	for i, c := range infos {
		if c.object == noObject {
			continue // a synthetic class (primitive arrays, java.lang.Class's own)
		}
		e, ok := byName[x.classes[i]]
		if !ok {
			e = &entry{name: x.classes[i]}
			byName[e.name] = e
			names = append(names, e)
		}
		e.loaders = append(e.loaders, i)
	}
	var dups []*entry
	for _, e := range names {
		distinct := map[uint32]bool{}
		for _, i := range e.loaders {
			distinct[infos[i].loader] = true
		}
		if len(distinct) > 1 {
			dups = append(dups, e)
		}
	}
	slices.SortStableFunc(dups, func(a, b *entry) int {
		if c := len(b.loaders) - len(a.loaders); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	p, err := page(dups, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]DuplicateClass, 0, len(p))
	for _, e := range p {
		d := DuplicateClass{Class: e.name}
		for k, i := range e.loaders {
			n, _ := infos[i].instances()
			d.Instances += n
			if k >= maxDuplicateLoaders {
				continue
			}
			obj, err := x.loaderObject(infos[i].loader)
			if err != nil {
				return nil, 0, err
			}
			d.Loaders = append(d.Loaders, ClassLoader{Loader: obj, Instances: n})
		}
		out = append(out, d)
	}
	return out, len(dups), nil
}

// objectPath is one decoded entry of the objectPaths section.
type objectPath struct {
	parent, via, steps, root uint32
}

// objectPath reads o's entry.
func (x *Index) objectPath(o uint32) (objectPath, error) {
	var b [objectPathEntry]byte
	if err := x.readAt(b[:], x.hd.ObjectPaths.Offset+uint64(o)*objectPathEntry); err != nil {
		return objectPath{}, err
	}
	p := objectPath{parent: le.Uint32(b[:]), via: le.Uint32(b[4:]), steps: le.Uint32(b[8:]), root: le.Uint32(b[12:])}
	switch {
	case p.parent == noObject && (p.steps != 0 || p.root != noObject):
		return p, malformedIndex("unreachable object %d has a path", o)
	case p.parent != noObject && (uint64(p.parent) > x.hd.Objects || p.steps == 0 || uint64(p.root) >= x.hd.Objects || uint64(p.steps) > x.hd.Objects):
		return p, malformedIndex("object %d's path: parent %d, %d steps from root %d", o, p.parent, p.steps, p.root)
	case uint64(p.parent) == x.hd.Objects && (p.steps != 1 || p.root != o):
		return p, malformedIndex("GC root %d's path", o)
	}
	return p, nil
}

// fieldName is the name of a via, "" for none.
func (x *Index) fieldName(via uint32) (string, error) {
	switch {
	case via == viaUnknown:
		return "", nil
	case via&viaElement != 0:
		return fmt.Sprintf("[%d]", via&^viaElement), nil
	case int(via) < len(x.names):
		return x.names[via], nil
	}
	return "", malformedIndex("a field %d of %d names", via, len(x.names))
}

// rootLabel describes GC root o as the report does ("Java local of thread
// main", "system class"), from the gcRoots section.
func (x *Index) rootLabel(o uint32) (string, error) {
	n := x.hd.GCRoots.Length / rootEntry
	lo, hi := uint64(0), n
	var e [rootEntry]byte
	for lo < hi { // the first entry of o
		m := lo + (hi-lo)/2
		if err := x.readAt(e[:], x.hd.GCRoots.Offset+m*rootEntry); err != nil {
			return "", err
		}
		if le.Uint32(e[:]) < o {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var kinds []string
	more := 0
	for i := lo; i < n; i++ {
		if err := x.readAt(e[:], x.hd.GCRoots.Offset+i*rootEntry); err != nil {
			return "", err
		}
		if le.Uint32(e[:]) != o {
			break
		}
		kind, thread := RootKind(le.Uint32(e[4:])), le.Uint32(e[8:])
		if kind > RootOther {
			return "", malformedIndex("GC root %d of kind %d", o, kind)
		}
		label := kind.String()
		if thread != noObject && uint64(thread) < x.hd.Objects {
			if name, err := x.threadName(thread); err != nil {
				return "", err
			} else if name != "" {
				if kind == RootThreadObject {
					label = "thread " + name
				} else {
					label += " of thread " + name
				}
			}
		}
		if slices.Contains(kinds, label) {
			continue
		}
		if len(kinds) == maxRootLabels {
			more++
			continue
		}
		kinds = append(kinds, label)
	}
	out := strings.Join(kinds, ", ")
	if more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out, nil
}

// threadName is the name the index keeps of thread object o, "" if none.
func (x *Index) threadName(o uint32) (string, error) {
	rec, err := x.record(o)
	if err != nil || !rec.hasText {
		return "", err
	}
	return x.text(o)
}

// step describes object o as a step of a path at position pos, reached
// through via from the step before.
func (x *Index) step(o uint32, via uint32, pos int) (Step, error) {
	obj, err := x.Object(o)
	if err != nil {
		return Step{}, err
	}
	st := Step{Object: obj, Index: pos}
	if pos == 0 {
		st.Root, err = x.rootLabel(o)
		return st, err
	}
	st.Field, err = x.fieldName(via)
	return st, err
}

// PathToRoot is a shortest path of strong references from a GC root to node
// (MAT's "Path to GC Roots" excluding weak and soft references: no step goes
// through java.lang.ref.Reference.referent), by its ends: the GC root, and at
// most ends steps down to node (node included), index being each one's
// position on the path (0 for the root) and length the number of its steps;
// the steps between the two ends are left out (PathPage pages through
// them). Each step says the field through which the step before references
// it. An unreachable node is an ErrInvalidParameter error.
func (x *Index) PathToRoot(node uint32, ends int) (steps []Step, index []int, length int, err error) {
	if err := x.needVersion3(); err != nil {
		return nil, nil, 0, err
	}
	o, err := x.node(node)
	if err != nil || node == IndexRoot {
		if err == nil {
			err = fmt.Errorf("%w: the GC roots have no path", analyze.ErrInvalidParameter)
		}
		return nil, nil, 0, err
	}
	p, err := x.objectPath(o)
	if err != nil {
		return nil, nil, 0, err
	}
	if p.parent == noObject {
		return nil, nil, 0, fmt.Errorf("%w: object %d is not reachable from the GC roots by strong references", analyze.ErrInvalidParameter, node)
	}
	length = int(p.steps)
	near, err := x.walkPath(o, p, length-1, min(max(ends, 1), length))
	if err != nil {
		return nil, nil, 0, err
	}
	if length > len(near) {
		root, err := x.step(p.root, viaUnknown, 0)
		if err != nil {
			return nil, nil, 0, err
		}
		steps, index = append(steps, root), append(index, 0)
	}
	for i := len(near) - 1; i >= 0; i-- {
		steps, index = append(steps, near[i]), append(index, near[i].Index)
	}
	if near[len(near)-1].Index != 0 && length == len(near) {
		return nil, nil, 0, malformedIndex("object %d's path does not end at a GC root", node)
	}
	return steps, index, length, nil
}

// walkPath returns k steps up the path from o (whose entry is p, at position
// pos), o first.
func (x *Index) walkPath(o uint32, p objectPath, pos, k int) ([]Step, error) {
	var out []Step
	for len(out) < k {
		if pos < 0 {
			return nil, malformedIndex("a path longer than its count of steps")
		}
		st, err := x.step(o, p.via, pos)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
		if uint64(p.parent) == x.hd.Objects || len(out) == k {
			if uint64(p.parent) == x.hd.Objects && pos != 0 {
				return nil, malformedIndex("object %d is a GC root at step %d of a path", o, pos)
			}
			break
		}
		o = p.parent
		next, err := x.objectPath(o)
		if err != nil {
			return nil, err
		}
		if next.parent == noObject || next.steps != p.steps-1 {
			return nil, malformedIndex("object %d on a path has %d steps after %d", o, next.steps, p.steps)
		}
		p = next
		pos--
	}
	return out, nil
}

// PathPage is the steps of node's shortest path from a GC root (see
// PathToRoot) at positions offset… (0 for the root), at most limit, and the
// number of steps in all. It walks up the path from node to the page: a page
// more than 4,194,304 steps above node is an ErrInvalidParameter error.
func (x *Index) PathPage(node uint32, offset, limit int) ([]Step, int, error) {
	if err := x.needVersion3(); err != nil {
		return nil, 0, err
	}
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	o, err := x.node(node)
	if err != nil || node == IndexRoot {
		if err == nil {
			err = fmt.Errorf("%w: the GC roots have no path", analyze.ErrInvalidParameter)
		}
		return nil, 0, err
	}
	p, err := x.objectPath(o)
	if err != nil {
		return nil, 0, err
	}
	if p.parent == noObject {
		return nil, 0, fmt.Errorf("%w: object %d is not reachable from the GC roots by strong references", analyze.ErrInvalidParameter, node)
	}
	total := int(p.steps)
	if offset >= total || limit == 0 {
		return []Step{}, total, nil
	}
	last := min(total, offset+limit) - 1 // the page's last position
	if total-1-last > maxPathWalk {
		return nil, 0, fmt.Errorf("%w: the page is %d steps above object %d, more than %d", analyze.ErrInvalidParameter, total-1-last, node, maxPathWalk)
	}
	pos := total - 1
	for pos > last {
		o = p.parent
		if p, err = x.objectPath(o); err != nil {
			return nil, 0, err
		}
		if p.parent == noObject || int(p.steps) != pos {
			return nil, 0, malformedIndex("object %d on a path has %d steps, want %d", o, p.steps, pos)
		}
		pos--
	}
	steps, err := x.walkPath(o, p, pos, last-offset+1)
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(steps)
	return steps, total, nil
}

// ChildGroup is a ClassGroup of the objects one node immediately dominates,
// with the largest of them (the group's only object when it has one).
type ChildGroup struct {
	ClassGroup
	Largest Object `json:"largest"`
}

// eachChild calls fn with every object node immediately dominates (its record
// number o), largest retained first, reading the children array a chunk at a
// time; more than 1,048,576 children are an ErrInvalidParameter error.
func (x *Index) eachChild(o uint32, fn func(c uint32, rec indexRecord) error) error {
	rec, err := x.record(o)
	if err != nil {
		return err
	}
	total := int(rec.kidsEnd - rec.kidsStart)
	if total > maxGroupChildren {
		return fmt.Errorf("%w: object %d dominates %d objects, more than the %d a grouping reads: page its children", analyze.ErrInvalidParameter, o, total, maxGroupChildren)
	}
	const chunk = 4096
	b := make([]byte, 4*min(chunk, total))
	for from := 0; from < total; from += chunk {
		k := min(chunk, total-from)
		if err := x.readAt(b[:4*k], x.hd.Kids.Offset+4*(uint64(rec.kidsStart)+uint64(from))); err != nil {
			return err
		}
		for j := range k {
			c := le.Uint32(b[4*j:])
			if uint64(c) >= x.hd.Objects {
				return malformedIndex("child %d of object %d is %d of %d objects", from+j, o, c, x.hd.Objects)
			}
			crec, err := x.record(c)
			if err != nil {
				return err
			}
			if err := fn(c, crec); err != nil {
				return err
			}
		}
	}
	return nil
}

// ChildGroups groups the objects node immediately dominates by class (MAT's
// "group by class" at any level of the dominator tree), largest retained
// first, from offset, at most limit groups, each with its largest object, and
// how many groups there are. The GC roots' children are read from the
// index's groups; another node's children are read one record each (an
// object that dominates more than 1,048,576 is an ErrInvalidParameter error).
func (x *Index) ChildGroups(node uint32, offset, limit int) ([]ChildGroup, int, error) {
	if node == IndexRoot {
		gs, err := x.groups()
		if err != nil {
			return nil, 0, err
		}
		p, err := page(gs, offset, limit)
		if err != nil {
			return nil, 0, err
		}
		out := make([]ChildGroup, 0, len(p))
		for _, g := range p {
			var b [4]byte
			if err := x.readAt(b[:], x.hd.TopMembers.Offset+4*uint64(g.first)); err != nil {
				return nil, 0, err
			}
			if uint64(le.Uint32(b[:])) >= x.hd.Objects {
				return nil, 0, malformedIndex("top-level object %d of %d", le.Uint32(b[:]), x.hd.Objects)
			}
			obj, err := x.Object(le.Uint32(b[:]))
			if err != nil {
				return nil, 0, err
			}
			out = append(out, ChildGroup{ClassGroup: g.ClassGroup, Largest: obj})
		}
		return out, len(gs), nil
	}
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	o, err := x.node(node)
	if err != nil {
		return nil, 0, err
	}
	type acc struct {
		ClassGroup
		first uint32
	}
	at := map[uint32]int{}
	var groups []acc
	err = x.eachChild(o, func(c uint32, rec indexRecord) error {
		i, ok := at[rec.class]
		if !ok {
			i = len(groups)
			at[rec.class] = i
			groups = append(groups, acc{ClassGroup: ClassGroup{Name: x.classes[rec.class], Class: int(rec.class)}, first: c})
		}
		groups[i].Objects++
		groups[i].Shallow += rec.shallow
		groups[i].Retained += int64(rec.retained)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortStableFunc(groups, func(a, b acc) int { return cmpDesc(a.Retained, b.Retained, a.Objects, b.Objects) })
	p, err := page(groups, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ChildGroup, 0, len(p))
	for _, g := range p {
		obj, err := x.Object(g.first)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, ChildGroup{ClassGroup: g.ClassGroup, Largest: obj})
	}
	return out, len(groups), nil
}

// ClassMembers are the objects of class (a ClassGroup's Class) that node
// immediately dominates, largest retained first, from offset, at most limit,
// with how many there are: a group of ChildGroups opened.
func (x *Index) ClassMembers(node uint32, class, offset, limit int) ([]Object, int, error) {
	if class < 0 || uint64(class) >= uint64(x.hd.Classes) {
		return nil, 0, fmt.Errorf("%w: no class %d of %d", analyze.ErrInvalidParameter, class, x.hd.Classes)
	}
	if node == IndexRoot {
		return x.ClassGroupMembers(class, offset, limit)
	}
	if offset < 0 || limit < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d, limit %d", analyze.ErrInvalidParameter, offset, limit)
	}
	o, err := x.node(node)
	if err != nil {
		return nil, 0, err
	}
	var members []uint32
	total := 0
	err = x.eachChild(o, func(c uint32, rec indexRecord) error {
		if rec.class == uint32(class) {
			if total >= offset && len(members) < limit {
				members = append(members, c)
			}
			total++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Object, 0, len(members))
	for _, c := range members {
		obj, err := x.Object(c)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, obj)
	}
	return out, total, nil
}
