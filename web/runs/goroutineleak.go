package runs

import (
	"context"
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/view"
)

// provenLeakJSON is the "proven_leaked" part of a run report's JSON: what the Go
// runtime's goroutineleak profiles captured during the run proved.
type provenLeakJSON struct {
	// Served reports that the target served /debug/pprof/goroutineleak; false when
	// it answered 404 (a program built without GOEXPERIMENT=goroutineleakprofile).
	Served bool `json:"served"`
	// Captures counts the goroutineleak captures; First and Last are the proven
	// counts of the first and the last.
	Captures   int    `json:"captures"`
	FirstCount int    `json:"first"`
	LastCount  int    `json:"last"`
	LastName   string `json:"last_name,omitempty"`
	// Groups are the last capture's groups by stack.
	Groups []provenLeakGroup `json:"groups,omitempty"`
	// Hint says how to get the proof when the target did not serve it.
	Hint string `json:"hint,omitempty"`
}

// provenLeakGroup is one group of proven leaked goroutines: the count and the
// stack's most telling function.
type provenLeakGroup struct {
	Count int    `json:"count"`
	Func  string `json:"func"`
}

// runLeakHint says how to get the runtime's proof in a lab run or a target capture.
const runLeakHint = "The target does not serve /debug/pprof/goroutineleak. " + goroutines.LeakProofHint +
	" For the lab's workloads, build leakui itself that way: they run as its children."

// runProvenLeak reads the run's goroutineleak captures; ok is false when the run
// captured no goroutine profile at all (nothing to say).
func (s *Kind) runProvenLeak(ctx context.Context, arts []store.RunArtifact) (j provenLeakJSON, ok bool, err error) {
	var leak []store.RunArtifact
	goroutine := false
	for _, a := range arts {
		switch a.Role {
		case lab.RoleGoroutineLeak:
			leak = append(leak, a)
		case "goroutine":
			goroutine = true
		}
	}
	if len(leak) == 0 {
		if !goroutine {
			return j, false, nil
		}
		return provenLeakJSON{Hint: runLeakHint}, true, nil
	}
	j = provenLeakJSON{Served: true, Captures: len(leak), LastName: leak[len(leak)-1].Name}
	first, err := s.Goroutines.Load(ctx, leak[0].SHA256)
	if err != nil {
		return j, false, err
	}
	last, err := s.Goroutines.Load(ctx, leak[len(leak)-1].SHA256)
	if err != nil {
		return j, false, err
	}
	j.FirstCount, j.LastCount = first.Leaked(), last.Leaked()
	for i, g := range goroutines.Groups(last) {
		if i == 10 {
			break
		}
		j.Groups = append(j.Groups, provenLeakGroup{Count: g.Count, Func: groups.Title(g.Stack)})
	}
	return j, true, nil
}

// provenLeakSection is the run page's section of the proof: counts first → last
// and the last capture's groups, or how to get the proof.
func provenLeakSection(j provenLeakJSON) view.Section {
	sec := view.Section{ID: "proven-leaked", Title: "Proven leaked by the Go runtime"}
	if !j.Served {
		sec.Lines = []string{j.Hint}
		return sec
	}
	sec.Lines = append(sec.Lines, fmt.Sprintf("%s proven leaked in the last of %s (%s); %d in the first.",
		analyze.Plural(int64(j.LastCount), "goroutine"), analyze.Plural(int64(j.Captures), "goroutineleak capture"), j.LastName, j.FirstCount))
	for _, g := range j.Groups {
		sec.Lines = append(sec.Lines, fmt.Sprintf("%d × %s", g.Count, g.Func))
	}
	return sec
}
