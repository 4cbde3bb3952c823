package jvm

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Order is what JVM class tables are ranked by.
type Order int

// The orders of class tables.
const (
	// ByBytes ranks by bytes (or growth in bytes), largest first.
	ByBytes Order = iota
	// ByInstances ranks by instances (or growth in instances), largest first.
	ByInstances
)

// HistogramSnapshot is one histogram in the shape a series analysis takes: per
// class name, its bytes and its instances, and when it was taken (zero when
// unknown). Rows of the same name (one class loaded by several class loaders) are
// added up.
type HistogramSnapshot struct {
	Time      time.Time
	Bytes     map[string]int64
	Instances map[string]int64
}

// Snapshot returns the histogram as a series snapshot.
func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{
		Time:      h.Time,
		Bytes:     make(map[string]int64, len(h.Classes)),
		Instances: make(map[string]int64, len(h.Classes)),
	}
	for _, c := range h.Classes {
		s.Bytes[c.Name] += c.Bytes
		s.Instances[c.Name] += c.Instances
	}
	return s
}

// Ranked returns the classes ranked by order (ties by name), without changing h.
func (h *Histogram) Ranked(order Order) []Class {
	out := slices.Clone(h.Classes)
	slices.SortStableFunc(out, func(a, b Class) int {
		if order == ByInstances {
			if c := cmp.Compare(b.Instances, a.Instances); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// ClassChange is how one class changed between two histograms. Instances and
// Bytes are target − base, like the rows of `go tool pprof -top -diff_base`.
type ClassChange struct {
	Name            string `json:"name"`
	Instances       int64  `json:"instances"`
	Bytes           int64  `json:"bytes"`
	BaseInstances   int64  `json:"base_instances"`
	BaseBytes       int64  `json:"base_bytes"`
	TargetInstances int64  `json:"target_instances"`
	TargetBytes     int64  `json:"target_bytes"`
}

// New reports whether the class had no instances in the base.
func (c ClassChange) New() bool { return c.BaseInstances == 0 && c.TargetInstances > 0 }

// HistogramDiff compares two class histograms of one JVM: what grew, by how much.
type HistogramDiff struct {
	// Warnings say why the two histograms may not be comparable (see
	// OriginWarnings), to be shown first; absent when none.
	Warnings []string `json:"warnings,omitempty"`
	// TotalInstances and TotalBytes are target − base.
	TotalInstances       int64 `json:"total_instances"`
	TotalBytes           int64 `json:"total_bytes"`
	BaseTotalInstances   int64 `json:"base_total_instances"`
	BaseTotalBytes       int64 `json:"base_total_bytes"`
	TargetTotalInstances int64 `json:"target_total_instances"`
	TargetTotalBytes     int64 `json:"target_total_bytes"`
	// Classes holds every class of either histogram, ranked by growth in bytes
	// (then in instances, then by name): what grew most first, what shrank last.
	Classes []ClassChange `json:"classes"`
}

// DiffHistograms compares base with target, class by class (rows of the same name
// added up). Totals come from each histogram's Total line.
func DiffHistograms(base, target *Histogram) *HistogramDiff {
	d := &HistogramDiff{
		Warnings:             OriginWarnings(base.Origin, target.Origin),
		BaseTotalInstances:   base.TotalInstances,
		BaseTotalBytes:       base.TotalBytes,
		TargetTotalInstances: target.TotalInstances,
		TargetTotalBytes:     target.TotalBytes,
		TotalInstances:       target.TotalInstances - base.TotalInstances,
		TotalBytes:           target.TotalBytes - base.TotalBytes,
	}
	index := make(map[string]int, len(target.Classes)+len(base.Classes)/8)
	changeOf := func(name string) *ClassChange {
		i, ok := index[name]
		if !ok {
			i = len(d.Classes)
			index[name] = i
			d.Classes = append(d.Classes, ClassChange{Name: name})
		}
		return &d.Classes[i]
	}
	d.Classes = make([]ClassChange, 0, len(target.Classes)+len(base.Classes)/8)
	for _, c := range base.Classes {
		ch := changeOf(c.Name)
		ch.BaseInstances += c.Instances
		ch.BaseBytes += c.Bytes
	}
	for _, c := range target.Classes {
		ch := changeOf(c.Name)
		ch.TargetInstances += c.Instances
		ch.TargetBytes += c.Bytes
	}
	for i := range d.Classes {
		c := &d.Classes[i]
		c.Instances = c.TargetInstances - c.BaseInstances
		c.Bytes = c.TargetBytes - c.BaseBytes
	}
	sortChanges(d.Classes, ByBytes)
	return d
}

// Ranked returns the changes ranked by growth in order (ties by the other measure,
// then by name), without changing d.
func (d *HistogramDiff) Ranked(order Order) []ClassChange {
	out := slices.Clone(d.Classes)
	sortChanges(out, order)
	return out
}

// Grown returns at most n classes that grew in order's measure, largest growth
// first; n ≤ 0 means all.
func (d *HistogramDiff) Grown(order Order, n int) []ClassChange {
	return topChanges(d.Classes, order, n, func(c ClassChange) bool {
		if order == ByInstances {
			return c.Instances > 0
		}
		return c.Bytes > 0
	})
}

// Suspects returns at most n application classes (see IsPlatformClass) that
// grew in instances by the floor a leak suspect needs, most new instances first
// (n ≤ 0: all). The shallow bytes of a leaked object are small and the JDK's arrays
// and collections it holds dominate the byte ranking; the application class whose
// instance count climbs is what names the leak (SAMZA-2785: 14 → 1,741
// KafkaSystemConsumer instances). The floor: at least analyze.SuspectMinCount
// more instances (or analyze.SuspectMinBytes more bytes), and at least
// analyze.SuspectMinShare of what the application classes grew by in instances
// together, so that one lambda more (a hidden class the next JDK names anew) is
// no suspect. Growers returns them all.
func (d *HistogramDiff) Suspects(n int) []ClassChange {
	growth := d.applicationGrowth()
	return topChanges(d.Classes, ByInstances, n, func(c ClassChange) bool {
		return c.Instances > 0 && !IsPlatformClass(c.Name) && SuspectFloor(c, growth)
	})
}

// Growers returns at most n application classes that grew in instances, suspects
// or not, most new instances first (n ≤ 0: all).
func (d *HistogramDiff) Growers(n int) []ClassChange {
	return topChanges(d.Classes, ByInstances, n, func(c ClassChange) bool {
		return c.Instances > 0 && !IsPlatformClass(c.Name)
	})
}

// applicationGrowth is how many instances the application classes that grew
// gained together.
func (d *HistogramDiff) applicationGrowth() int64 {
	var sum int64
	for _, c := range d.Classes {
		if c.Instances > 0 && !IsPlatformClass(c.Name) {
			sum += c.Instances
		}
	}
	return sum
}

// SuspectFloor reports whether a class's growth reaches the floor of a leak
// suspect (see Suspects): analyze.SuspectMinCount instances or
// analyze.SuspectMinBytes bytes, and analyze.SuspectMinShare of growth, the
// instances the application classes gained together.
func SuspectFloor(c ClassChange, growth int64) bool {
	enough := c.Instances >= analyze.SuspectMinCount || c.Bytes >= analyze.SuspectMinBytes
	return enough && float64(c.Instances) >= analyze.SuspectMinShare*float64(growth)
}

// topChanges returns the changes that keep accepts, ranked by order, at most n of
// them (n ≤ 0: all). With a small n it keeps a sorted window instead of sorting all.
func topChanges(cs []ClassChange, order Order, n int, keep func(ClassChange) bool) []ClassChange {
	out := []ClassChange{}
	for _, c := range cs {
		if !keep(c) {
			continue
		}
		if n <= 0 || len(out) < n {
			out = append(out, c)
			if n > 0 {
				siftUp(out, len(out)-1, order)
			}
			continue
		}
		if changeLess(c, out[n-1], order) {
			out[n-1] = c
			siftUp(out, n-1, order)
		}
	}
	if n <= 0 {
		sortChanges(out, order)
	}
	return out
}

// siftUp moves cs[i] up to its place in the sorted cs[:i+1].
func siftUp(cs []ClassChange, i int, order Order) {
	for ; i > 0 && changeLess(cs[i], cs[i-1], order); i-- {
		cs[i], cs[i-1] = cs[i-1], cs[i]
	}
}

// changeLess reports whether a ranks before b.
func changeLess(a, b ClassChange, order Order) bool {
	return compareChanges(a, b, order) < 0
}

// IsPlatformClass reports whether a histogram row is the JDK's own rather than
// the application's: arrays, VM-internal rows such as "<symbolKlass>", and classes
// in the java, javax, jdk, sun and com.sun packages.
func IsPlatformClass(name string) bool {
	if name == "" || name[0] == '[' || name[0] == '<' || name[0] == '*' {
		return true
	}
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func sortChanges(cs []ClassChange, order Order) {
	slices.SortFunc(cs, func(a, b ClassChange) int { return compareChanges(a, b, order) })
}

// compareChanges ranks by growth in order's measure, then in the other, then by
// name.
func compareChanges(a, b ClassChange, order Order) int {
	first, second := cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Instances, a.Instances)
	if order == ByInstances {
		first, second = second, first
	}
	if first != 0 {
		return first
	}
	if second != 0 {
		return second
	}
	return cmp.Compare(a.Name, b.Name)
}
