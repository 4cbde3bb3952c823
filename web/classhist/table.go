package classhist

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/snapshot"
	"github.com/leakui/leakui/web/view"
)

// Headline says what a histogram holds and its largest class, in plain
// text (the engine's headline quotes names as code spans).
func Headline(h *jvm.Histogram) string {
	s := fmt.Sprintf("%s classes, %s instances, %s.", analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatBytes(h.TotalBytes))
	if top := h.Ranked(jvm.ByBytes); len(top) > 0 {
		s += fmt.Sprintf(" Largest: %s with %s in %s instances (%s of the bytes).", ClassLabel(top[0].Name),
			analyze.FormatBytes(top[0].Bytes), analyze.FormatCount(top[0].Instances), page.Share(top[0].Bytes, h.TotalBytes))
	}
	return s
}

// TotalCheck compares a histogram's rows with the file's own Total line.
func TotalCheck(h *jvm.Histogram) (string, bool) {
	switch {
	case !h.HasTotal:
		return fmt.Sprintf("The file has no Total line: the totals are the sums of its %s rows, and the histogram may be cut short.",
			analyze.FormatCount(int64(len(h.Classes)))), false
	case h.TotalInstances != h.RowInstances || h.TotalBytes != h.RowBytes:
		return fmt.Sprintf("The file's Total line says %s instances and %s bytes, but its %s rows add up to %s instances and %s bytes.",
			analyze.FormatCount(h.TotalInstances), analyze.FormatCount(h.TotalBytes), analyze.FormatCount(int64(len(h.Classes))),
			analyze.FormatCount(h.RowInstances), analyze.FormatCount(h.RowBytes)), false
	}
	return fmt.Sprintf("The %s rows add up exactly to the file's Total line: %s instances, %s bytes.",
		analyze.FormatCount(int64(len(h.Classes))), analyze.FormatCount(h.TotalInstances), analyze.FormatCount(h.TotalBytes)), true
}

// ClassTable formats the first rows of a histogram ranked by order (all when rows
// is 0).
func ClassTable(h *jvm.Histogram, order jvm.Order, rows int, showAll string) view.JVMClassTable {
	ranked := h.Ranked(order)
	t := view.JVMClassTable{By: OrderName(order), All: len(ranked)}
	shown := snapshot.First(ranked, rows)
	if len(shown) < len(ranked) {
		t.ShowAll = showAll
	}
	t.Count = len(shown)
	var largest int64
	if len(shown) > 0 {
		largest = Measure(shown[0].Bytes, shown[0].Instances, order)
	}
	t.Rows = make([]view.JVMClassRow, len(shown))
	for i, c := range shown {
		row := view.JVMClassRow{
			Rank: i + 1, Name: c.Name, Module: c.Module,
			Instances: analyze.FormatCount(c.Instances), Bytes: analyze.FormatCount(c.Bytes),
			InstancesShare: page.Share(c.Instances, h.TotalInstances), BytesShare: page.Share(c.Bytes, h.TotalBytes),
			InstancesValue: c.Instances, BytesValue: c.Bytes,
			BarPct: page.BarPct(Measure(c.Bytes, c.Instances, order), largest),
			App:    !jvm.IsPlatformClass(c.Name),
		}
		if d := jvm.ClassDisplayName(c.Name); d != c.Name {
			row.Display = d
		}
		t.Rows[i] = row
	}
	return t
}

// ClassLabel is a class name with its Java spelling when that differs.
func ClassLabel(name string) string {
	if d := jvm.ClassDisplayName(name); d != name {
		return name + " (" + d + ")"
	}
	return name
}

// OrderName names an order as pages and links say it.
func OrderName(o jvm.Order) string {
	if o == jvm.ByInstances {
		return "instances"
	}
	return "bytes"
}

// Measure is the bytes or the instances, as o ranks.
func Measure(bytes, instances int64, o jvm.Order) int64 {
	if o == jvm.ByInstances {
		return instances
	}
	return bytes
}
