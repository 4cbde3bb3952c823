package pprof

import (
	"fmt"
	"sort"

	"github.com/leakui/leakui/analyze"
)

// DiffRow is one function of a diff: flat and cum as target − base (what
// `go tool pprof -top -diff_base=BASE TARGET` prints) and the values on each side.
type DiffRow struct {
	Name       string `json:"name"`
	Flat       int64  `json:"flat"`
	Cum        int64  `json:"cum"`
	BaseFlat   int64  `json:"base_flat"`
	TargetFlat int64  `json:"target_flat"`
	BaseCum    int64  `json:"base_cum"`
	TargetCum  int64  `json:"target_cum"`
}

// DiffResult compares one sample type of two profiles of the same type.
type DiffResult struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Total is what pprof divides by for percentages in a diff: the base total,
	// before any filter.
	Total       int64     `json:"total"`
	BaseTotal   int64     `json:"base_total"`
	TargetTotal int64     `json:"target_total"`
	Rows        []DiffRow `json:"rows"`
	// Dropped is how many rows a trim left out (see Trimmed), those whose |cum|
	// is at most DroppedCutoff; both are 0 untrimmed.
	Dropped       int   `json:"dropped,omitempty"`
	DroppedCutoff int64 `json:"dropped_cutoff,omitempty"`
}

// Trimmed is the diff trimmed as `go tool pprof -top -diff_base` trims it with
// -nodefraction=nodeFraction (report.newTrimmedGraph): the rows whose |cum| is
// below nodeFraction × the sum of the flat changes left out, Dropped and
// DroppedCutoff (nodeFraction × Total) saying what its "Dropped N nodes
// (cum <= C)" says.
func (d DiffResult) Trimmed(nodeFraction float64) DiffResult {
	top := TopResult{Total: d.Total, Rows: make([]TopRow, len(d.Rows))}
	for i, r := range d.Rows {
		top.Rows[i] = r.top()
	}
	_, dropped, cutoff := top.PprofTrim(nodeFraction)
	if dropped == 0 {
		return d
	}
	var flatSum int64
	for _, r := range d.Rows {
		flatSum += r.Flat
	}
	nodeCutoff := abs64(int64(float64(flatSum) * nodeFraction))
	kept := make([]DiffRow, 0, len(d.Rows)-dropped)
	for _, r := range d.Rows {
		if abs64(r.Cum) >= nodeCutoff {
			kept = append(kept, r)
		}
	}
	d.Rows, d.Dropped, d.DroppedCutoff = kept, d.Dropped+dropped, cutoff
	return d
}

// Change is TargetTotal − BaseTotal.
func (d DiffResult) Change() int64 { return d.TargetTotal - d.BaseTotal }

// Diff compares target with base for one sample type, ranked like pprof's
// -diff_base top: by the absolute flat change, then by name, then by cum change.
// Profiles of different types are refused with ErrMismatch.
func Diff(base, target *Profile, sampleIndex int) (DiffResult, error) {
	if err := Comparable(base, target); err != nil {
		return DiffResult{}, err
	}
	if sampleIndex < 0 || sampleIndex >= len(base.meta.sampleTypes) {
		return DiffResult{}, fmt.Errorf("%w: sample index %d", analyze.ErrInvalidParameter, sampleIndex)
	}
	base.walks.Add(1)
	target.walks.Add(1)
	bFlat, bCum, bTotal, err := profileNodeValues(base, sampleIndex)
	if err != nil {
		return DiffResult{}, err
	}
	tFlat, tCum, tTotal, err := profileNodeValues(target, sampleIndex)
	if err != nil {
		return DiffResult{}, err
	}
	st := base.meta.sampleTypes[sampleIndex]
	res := DiffResult{SampleType: st.typ, Unit: st.unit, BaseTotal: bTotal, TargetTotal: tTotal, Total: base.wholeTotal(sampleIndex)}
	if res.Total == 0 {
		res.Total = target.wholeTotal(sampleIndex) // pprof falls back to the whole merged total
	}
	byName := make(map[string]*DiffRow, len(target.tables().names))
	row := func(name string) *DiffRow {
		r, ok := byName[name]
		if !ok {
			r = &DiffRow{Name: name}
			byName[name] = r
		}
		return r
	}
	for n, name := range base.tables().names {
		if bFlat[n] != 0 || bCum[n] != 0 {
			r := row(name)
			r.BaseFlat, r.BaseCum = bFlat[n], bCum[n]
		}
	}
	for n, name := range target.tables().names {
		if tFlat[n] != 0 || tCum[n] != 0 {
			r := row(name)
			r.TargetFlat, r.TargetCum = tFlat[n], tCum[n]
		}
	}
	res.Rows = make([]DiffRow, 0, len(byName))
	for _, r := range byName {
		r.Flat, r.Cum = r.TargetFlat-r.BaseFlat, r.TargetCum-r.BaseCum
		if r.Flat == 0 && r.Cum == 0 {
			continue // pprof drops nodes that cancel out
		}
		res.Rows = append(res.Rows, *r)
	}
	sortDiffRows(res.Rows)
	return res, nil
}

// Comparable refuses, with an error wrapping ErrMismatch, profiles of different
// types (see SameType), which Diff cannot compare.
func Comparable(base, target *Profile) error {
	if !base.SameType(target) {
		b, t := MismatchNames(base, target)
		return fmt.Errorf("%w: the base measures %s and the target %s; compare profiles of one type (heap with heap, CPU with CPU)",
			analyze.ErrMismatch, b, t)
	}
	return nil
}

// sortDiffRows orders rows as pprof's -top does for a merged diff profile.
func sortDiffRows(rows []DiffRow) {
	sort.Slice(rows, func(i, j int) bool { return topLess(rows[i].top(), rows[j].top()) })
}

// top is the row as pprof prints it.
func (r DiffRow) top() TopRow { return TopRow{Name: r.Name, Flat: r.Flat, Cum: r.Cum} }

// ByCum returns the diff with its rows ranked by the absolute cum change (then by
// name): for goroutine profiles, where nearly every flat value sits in
// runtime.gopark, it puts the functions whose goroutines grew first.
func (d DiffResult) ByCum() DiffResult {
	rows := append([]DiffRow(nil), d.Rows...)
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := abs64(rows[i].Cum), abs64(rows[j].Cum); a != b {
			return a > b
		}
		return rows[i].Name < rows[j].Name
	})
	d.Rows = rows
	return d
}
