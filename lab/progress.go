package lab

import (
	"time"

	"github.com/leakui/leakui/lab/child"
)

// Run statuses.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusCancelled   = "cancelled"
	StatusInterrupted = "interrupted"
)

// Verdicts.
const (
	VerdictLeak   = "leak"
	VerdictNoLeak = "no-leak"
)

// Progress is a run's state as the pages and the API show it.
type Progress struct {
	Status   string           `json:"status"`
	Step     int64            `json:"step"`
	Steps    int64            `json:"steps"`
	StepName string           `json:"step_name,omitempty"`
	Counters map[string]int64 `json:"counters"`
	Memory   Memory           `json:"memory"`
	// Points are the memory figures per step, for the live charts; thinned to at
	// most maxPoints.
	Points    []Point   `json:"points"`
	Snapshots int       `json:"snapshots"`
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// ElapsedMs and RemainingMs estimate the time from the steps done so far.
	ElapsedMs   int64  `json:"elapsed_ms"`
	RemainingMs int64  `json:"remaining_ms"`
	Verdict     string `json:"verdict,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// Details are the verdict's further figures, each one labelled sentence,
	// which pages fold away below the one-sentence Reason.
	Details []string `json:"details,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Phase is the current phase that is not the workload's own unit of work
	// (writing the log before recovering it), from progress events whose step name
	// is not that unit's; nil while the unit's own steps run.
	Phase *Phase `json:"phase,omitempty"`
	// Phases are the phases the run went through so far, each at its latest
	// event, in order: what stays of the phase line once the unit's steps run
	// ("writing segments 80 of 80").
	Phases []Phase `json:"phases,omitempty"`
}

// Phase is the progress of a phase without the workload's unit of work: "write
// segment" 3 of 80.
type Phase struct {
	Name  string `json:"name"`
	Step  int64  `json:"step"`
	Steps int64  `json:"steps"`
}

// unitOf names each workload's unit of work, the step name its charts and
// verdict count; progress events under another step name are phases.
var unitOf = map[string]string{WorkloadCheckpoint: "cycle", WorkloadRecovery: "segment"}

// maxPhases bounds the phases a run keeps.
const maxPhases = 8

// isPhase reports whether a progress event belongs to a phase without the
// workload's unit of work (its step name is not the unit's): it makes the
// phase line, not a point of the charts nor a step to snapshot at.
func isPhase(ev child.Event, workloadName string) bool {
	unit := unitOf[workloadName]
	return ev.Kind == child.EventProgress && unit != "" && ev.StepName != "" && ev.StepName != unit
}

// UnitOf names a workload's unit of work ("cycle", "segment"), or "" when it has
// none declared.
func UnitOf(workload string) string { return unitOf[workload] }

// Memory is the child's memory at one moment.
type Memory struct {
	Goroutines int64 `json:"goroutines"`
	HeapInuse  int64 `json:"heap_inuse"`
	RSS        int64 `json:"rss"`
}

// Point is the memory and the open count (started − closed) after one step.
type Point struct {
	Step       int64 `json:"step"`
	Goroutines int64 `json:"goroutines"`
	HeapInuse  int64 `json:"heap_inuse"`
	RSS        int64 `json:"rss"`
	Open       int64 `json:"open"`
	OffHeap    int64 `json:"offheap,omitempty"`
	// At is when the lab read the step's event, in Unix milliseconds (0 in
	// progress recorded before it was kept).
	At int64 `json:"at,omitempty"`
}

// maxPoints bounds the points kept per run.
const maxPoints = 600

// clone copies the progress so a reader can keep it while the run goes on.
func (p Progress) clone() Progress {
	c := p
	c.Counters = make(map[string]int64, len(p.Counters))
	for k, v := range p.Counters {
		c.Counters[k] = v
	}
	c.Points = append([]Point(nil), p.Points...)
	c.Phases = append([]Phase(nil), p.Phases...)
	if p.Phase != nil {
		ph := *p.Phase
		c.Phase = &ph
	}
	return c
}

// apply folds a progress or done event into the state.
func (p *Progress) apply(ev child.Event, workloadName string, now time.Time) {
	if p.Counters == nil {
		p.Counters = map[string]int64{}
	}
	for k, v := range ev.Counters {
		p.Counters[k] = v
	}
	if isPhase(ev, workloadName) {
		// A phase of its own (writing before recovering): its line on the page,
		// not a point of the charts, whose x is the unit's steps.
		p.Phase = &Phase{Name: ev.StepName, Step: ev.Step, Steps: ev.Steps}
		if n := len(p.Phases); n > 0 && p.Phases[n-1].Name == ev.StepName {
			p.Phases[n-1] = *p.Phase
		} else if n < maxPhases {
			p.Phases = append(p.Phases, *p.Phase)
		}
		p.Memory = Memory{Goroutines: ev.Memory.Goroutines, HeapInuse: ev.Memory.HeapInuse, RSS: ev.Memory.RSS}
		p.UpdatedAt = now
		p.ElapsedMs = now.Sub(p.StartedAt).Milliseconds()
		return
	}
	p.Phase = nil
	p.Step, p.Steps, p.StepName = ev.Step, ev.Steps, ev.StepName
	p.Memory = Memory{Goroutines: ev.Memory.Goroutines, HeapInuse: ev.Memory.HeapInuse, RSS: ev.Memory.RSS}
	pt := Point{Step: ev.Step, Goroutines: ev.Memory.Goroutines, HeapInuse: ev.Memory.HeapInuse, RSS: ev.Memory.RSS,
		Open: openCount(workloadName, p.Counters), OffHeap: p.Counters["offheap_bytes"], At: now.UnixMilli()}
	if n := len(p.Points); n > 0 && p.Points[n-1].Step == pt.Step {
		p.Points[n-1] = pt
	} else {
		p.Points = append(p.Points, pt)
	}
	if len(p.Points) > maxPoints {
		p.Points = thin(p.Points)
	}
	p.UpdatedAt = now
	p.ElapsedMs = now.Sub(p.StartedAt).Milliseconds()
	if p.Step > 0 && p.Steps > p.Step {
		p.RemainingMs = p.ElapsedMs * (p.Steps - p.Step) / p.Step
	} else {
		p.RemainingMs = 0
	}
}

// thin keeps every other point, and always the first and the last.
func thin(pts []Point) []Point {
	out := make([]Point, 0, len(pts)/2+2)
	for i := 0; i < len(pts); i += 2 {
		out = append(out, pts[i])
	}
	if out[len(out)-1] != pts[len(pts)-1] {
		out = append(out, pts[len(pts)-1])
	}
	return out
}

// openCount is started − closed in the workload's own counters.
func openCount(workloadName string, c map[string]int64) int64 {
	switch workloadName {
	case WorkloadCheckpoint:
		return c["consumer_starts"] - c["consumer_stops"]
	case WorkloadRecovery:
		return c["iterators_opened"] - c["iterators_closed"]
	}
	return 0
}
