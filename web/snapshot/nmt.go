package snapshot

import (
	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/web/view"
)

// NMTChanges lists the categories that changed, most committed growth first.
func NMTChanges(d *jvm.NMTDiff) []view.JVMNMTChangeRow {
	var out []view.JVMNMTChangeRow
	for _, c := range d.Categories {
		if c.CommittedDelta == 0 && c.ReservedDelta == 0 {
			continue
		}
		out = append(out, view.JVMNMTChangeRow{Name: c.Name,
			BaseCommitted: analyze.FormatBytes(c.BaseCommitted), Committed: analyze.FormatBytes(c.Committed), Change: analyze.FormatSignedValue(c.CommittedDelta, "bytes"),
			BaseReserved: analyze.FormatBytes(c.BaseReserved), Reserved: analyze.FormatBytes(c.Reserved), ReservedDelta: analyze.FormatSignedValue(c.ReservedDelta, "bytes"),
			Malloc: analyze.FormatSignedValue(c.MallocDelta, "bytes"), Grew: c.CommittedDelta > 0, ChangeValue: c.CommittedDelta})
	}
	return out
}
