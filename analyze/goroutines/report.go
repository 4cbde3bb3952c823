package goroutines

import (
	"encoding/json"
	"time"
)

// Report is the grouped view of a goroutine dump, alone or against a base
// dump: what `leakui goroutines -json` prints and what a report page shows. Its JSON
// is {"total":N,"format":"…","groups":[{"count":N,"state":"…","stack":["pkg.fn",…],
// …}]} with the fields documented on each type.
type Report struct {
	// Verdict is the report's state in one word (VerdictCrash, VerdictLeak,
	// VerdictGrew, VerdictCompared, VerdictDump), and Headline says it in one
	// sentence with the numbers: the crash and the group of the goroutine that
	// panicked, "proven leaked: N", the change of a comparison, and always the
	// largest group by count (see Largest).
	Verdict  string `json:"verdict"`
	Headline string `json:"headline"`
	// Total is the number of goroutines in the dump.
	Total int `json:"total"`
	// Format is the dump's format (see Dump.Format).
	Format string `json:"format"`
	// DeclaredTotal is the total a debug=1 dump states about itself; nil otherwise.
	DeclaredTotal *int `json:"declared_total,omitempty"`
	// Time is when a proto profile was taken; nil when unknown.
	Time *time.Time `json:"time,omitempty"`
	// Truncated reports a dump cut short (see Dump.Truncated).
	Truncated bool `json:"truncated,omitempty"`
	// IgnoredLines counts lines that belong to no goroutine.
	IgnoredLines int `json:"ignored_lines,omitempty"`
	// Panic is the crash the dump starts with; nil for a live program's dump.
	Panic *Crash `json:"panic,omitempty"`
	// ProvenLeaked reports that the dump is the Go runtime's goroutineleak profile:
	// every goroutine in it is proven leaked (see Dump.ProvenLeaked).
	ProvenLeaked bool `json:"proven_leaked,omitempty"`
	// Leaked is how many goroutines the runtime proved leaked (see Dump.Leaked).
	Leaked int `json:"leaked,omitempty"`
	// LeakProofHint says how to get the runtime's proof when the dump proves no
	// leak (LeakProofHint); empty for a leak profile and for a crash.
	LeakProofHint string `json:"leak_proof_hint,omitempty"`
	// SplitBy is "creator" when the groups are split by the goroutine that created
	// their members (see GroupsByCreator); empty for groups by stack.
	SplitBy string `json:"split_by,omitempty"`
	// Base describes the base dump of a comparison; nil otherwise.
	Base *ReportBase `json:"base,omitempty"`
	// Groups are the groups in the order Groups or compareDumps gives.
	Groups []Group `json:"groups"`
}

// ReportBase summarizes the base dump of a comparison.
type ReportBase struct {
	Total     int        `json:"total"`
	Format    string     `json:"format"`
	Time      *time.Time `json:"time,omitempty"`
	Truncated bool       `json:"truncated,omitempty"`
}

// SplitCreator is Report.SplitBy for groups split by creating goroutine.
const SplitCreator = "creator"

// NewReportByCreator groups target like NewReport without a base, but split by the
// goroutine that created each member (see GroupsByCreator).
func NewReportByCreator(target *Dump) *Report {
	r := NewReport(target, nil)
	r.Groups = GroupsByCreator(target)
	r.SplitBy = SplitCreator
	r.decide()
	return r
}

// NewReport groups target, or compares it with base when base is not nil.
func NewReport(target, base *Dump) *Report {
	r := &Report{
		Total:        target.Total(),
		Format:       target.Format,
		Truncated:    target.Truncated,
		IgnoredLines: target.IgnoredLines,
		Panic:        target.Crash,
		Time:         goroutineTimeOrNil(target.Time),
		ProvenLeaked: target.ProvenLeaked,
		Leaked:       target.Leaked(),
	}
	if r.Leaked == 0 && !r.ProvenLeaked && r.Panic == nil {
		r.LeakProofHint = LeakProofHint
	}
	if target.DeclaredTotal >= 0 {
		n := target.DeclaredTotal
		r.DeclaredTotal = &n
	}
	if base == nil {
		r.Groups = Groups(target)
		r.decide()
		return r
	}
	r.Base = &ReportBase{Total: base.Total(), Format: base.Format, Time: goroutineTimeOrNil(base.Time), Truncated: base.Truncated}
	r.Groups = compareDumps(base, target)
	r.decide()
	return r
}

func goroutineTimeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// goroutineGroupJSON is the JSON form of a Group.
type goroutineGroupJSON struct {
	Count      int               `json:"count"`
	State      string            `json:"state"`
	Stack      []string          `json:"stack"`
	Frames     []Frame           `json:"frames"`
	CreatedBy  *Frame            `json:"created_by,omitempty"`
	CreatorIDs []int64           `json:"creator_ids,omitempty"`
	WaitMin    int               `json:"wait_min"`
	WaitMax    int               `json:"wait_max"`
	Locked     bool              `json:"locked,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	IDs        []int64           `json:"ids,omitempty"`
	Panicking  bool              `json:"panicking,omitempty"`
	BaseCount  *int              `json:"base_count,omitempty"`
	Delta      *int              `json:"delta,omitempty"`
	New        bool              `json:"new,omitempty"`
	Gone       bool              `json:"gone,omitempty"`
}

// MarshalJSON writes the group as {"count","state","stack":["pkg.fn",…],"frames":
// [{"func","file","line"}],"created_by","creator_ids","wait_min","wait_max" (whole
// minutes),"locked","labels","ids","panicking"}, and in a comparison also
// "base_count", "delta", "new" and "gone".
func (g Group) MarshalJSON() ([]byte, error) {
	j := goroutineGroupJSON{
		Count: g.Count, State: g.State, WaitMin: g.WaitMin, WaitMax: g.WaitMax,
		Locked: g.Locked, Labels: g.Labels, IDs: g.IDs, CreatorIDs: g.CreatorIDs, Panicking: g.Panicking,
		Stack: []string{}, Frames: []Frame{},
	}
	if g.Stack != nil {
		j.Stack = g.Stack.Funcs()
		if len(g.Stack.Frames) > 0 {
			j.Frames = g.Stack.Frames
		}
		j.CreatedBy = g.Stack.CreatedBy
	}
	if c := g.Change; c != nil {
		base, delta := c.Base, c.Delta
		j.BaseCount, j.Delta, j.New, j.Gone = &base, &delta, c.New, c.Gone
	}
	return json.Marshal(j)
}
