package hprof

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Comparison is two heap dumps compared by class, from their stored indexes:
// what grew from the base to the target.
type Comparison struct {
	Base   IndexSummary `json:"base"`
	Target IndexSummary `json:"target"`
	// ObjectsDelta, ShallowDelta and ReachableDelta are the target's minus the
	// base's.
	ObjectsDelta   int64 `json:"objects_delta"`
	ShallowDelta   int64 `json:"shallow_delta"`
	ReachableDelta int64 `json:"reachable_delta"`
	// Classes are every class of either dump (classes of one name added up),
	// the largest growth in retained size first, then in shallow size, then in
	// instances.
	Classes []ClassChange `json:"classes"`
	// Suspects are the classes whose instance count grew, by the growth, as a
	// comparison of class histograms names them; at most MaxGrowthSuspects.
	Suspects []ClassChange `json:"suspects"`
	// Sentence says the largest growth in one line.
	Sentence string `json:"sentence,omitempty"`
	// Dumps are every dump compared, first to last, when there are more
	// than two (Base is the first, Target the last); left to the caller.
	Dumps []IndexSummary `json:"dumps,omitempty"`
}

// ClassChange is one class in both dumps.
type ClassChange struct {
	Name           string `json:"name"`
	Instances      int64  `json:"instances"`
	InstancesDelta int64  `json:"instances_delta"`
	Shallow        int64  `json:"shallow"`
	ShallowDelta   int64  `json:"shallow_delta"`
	Retained       int64  `json:"retained"`
	RetainedDelta  int64  `json:"retained_delta"`
}

// MaxGrowthSuspects is how many classes Comparison.Suspects names.
const MaxGrowthSuspects = 10

// Compare compares two dumps by their indexes (of version 3: their class
// histograms with retained sizes), base first, without reading the dumps.
// The web stores each dump's index when it analyzes it; a comparison of
// several dumps is built from their indexes, first to last.
func Compare(base, target *Index) (*Comparison, error) {
	bh, err := base.Histogram()
	if err != nil {
		return nil, fmt.Errorf("the base: %w", err)
	}
	th, err := target.Histogram()
	if err != nil {
		return nil, fmt.Errorf("the target: %w", err)
	}
	c := &Comparison{Base: base.Summary(), Target: target.Summary()}
	c.ObjectsDelta = c.Target.Objects - c.Base.Objects
	c.ShallowDelta = c.Target.Shallow - c.Base.Shallow
	c.ReachableDelta = c.Target.Reachable - c.Base.Reachable
	at := map[string]int{}
	for _, r := range th {
		at[r.Name] = len(c.Classes)
		c.Classes = append(c.Classes, ClassChange{Name: r.Name, Instances: r.Instances, InstancesDelta: r.Instances,
			Shallow: r.Shallow, ShallowDelta: r.Shallow, Retained: r.Retained, RetainedDelta: r.Retained})
	}
	for _, r := range bh {
		i, ok := at[r.Name]
		if !ok {
			i = len(c.Classes)
			at[r.Name] = i
			c.Classes = append(c.Classes, ClassChange{Name: r.Name})
		}
		ch := &c.Classes[i]
		ch.InstancesDelta -= r.Instances
		ch.ShallowDelta -= r.Shallow
		ch.RetainedDelta -= r.Retained
	}
	slices.SortStableFunc(c.Classes, func(a, b ClassChange) int {
		if d := cmpDesc(a.RetainedDelta, b.RetainedDelta, a.ShallowDelta, b.ShallowDelta); d != 0 {
			return d
		}
		if d := cmpDesc(a.InstancesDelta, b.InstancesDelta, 0, 0); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, ch := range c.Classes {
		if ch.InstancesDelta > 0 {
			c.Suspects = append(c.Suspects, ch)
		}
	}
	slices.SortStableFunc(c.Suspects, func(a, b ClassChange) int {
		return cmpDesc(a.InstancesDelta, b.InstancesDelta, a.RetainedDelta, b.RetainedDelta)
	})
	c.Suspects = c.Suspects[:min(len(c.Suspects), MaxGrowthSuspects)]
	if len(c.Classes) > 0 && c.Classes[0].RetainedDelta > 0 {
		g := c.Classes[0]
		c.Sentence = fmt.Sprintf("`%s` grew by %s retained (%s instances), the reachable heap by %s.", g.Name,
			analyze.FormatBytes(g.RetainedDelta), analyze.FormatSignedValue(g.InstancesDelta, ""), analyze.FormatSignedValue(c.ReachableDelta, "bytes"))
	}
	return c, nil
}

// HeaderTime reads the time a dump's header says it was written (as
// Report.Time gives it) from the dump's first bytes, inflated when
// the dump is compressed: what orders dumps compared together before they are
// analyzed. It reads at most 64 bytes of r.
func HeaderTime(r io.Reader) (time.Time, error) {
	head := make([]byte, 64)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return time.Time{}, err
	}
	s := &scanner{r: bytes.NewReader(head[:n]), size: int64(n), buf: make([]byte, 64)}
	hd, err := readHeader(s)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(hd.millis).UTC(), nil
}
