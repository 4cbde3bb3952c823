package hprof

// Progress is one report of an analysis's progress (Options.OnProgress).
type Progress struct {
	// Stage is the stage running: "read", "index", "references", "strings",
	// "dominators", "retained", "paths", "histogram", "suspects", "names",
	// "native", "write-index".
	Stage string `json:"stage"`
	// Done is the fraction of the stage done.
	Done float64 `json:"done"`
	// Read is how far into the dump a stage that reads it is (bytes), 0 for
	// the others; Size is the dump's size.
	Read int64 `json:"read"`
	Size int64 `json:"size"`
	// Overall is the fraction of the whole analysis done (Parse, Analyze,
	// NewReport and WriteIndex), from each stage's share of the time of
	// measured analyses.
	Overall float64 `json:"overall"`
}

// The stages, in the order they run.
const (
	stageRead       = "read"
	stageIndex      = "index"
	stageReferences = "references"
	stageStrings    = "strings"
	stageDominators = "dominators"
	stageRetained   = "retained"
	stagePaths      = "paths"
	stageHistogram  = "histogram"
	stageSuspects   = "suspects"
	stageNames      = "names"
	stageNative     = "native"
	stageWriteIndex = "write-index"
)

// stageShares are each stage's share of the time of the whole analysis, as
// measured on the benchmark dumps (bench/RESULTS.md), in order.
var stageShares = []struct {
	stage string
	share float64
}{
	{stageRead, 0.17}, {stageIndex, 0.02}, {stageReferences, 0.20}, {stageStrings, 0.03},
	{stageDominators, 0.22}, {stageRetained, 0.05}, {stagePaths, 0.05},
	{stageHistogram, 0.05}, {stageSuspects, 0.01}, {stageNames, 0.12}, {stageNative, 0.02},
	{stageWriteIndex, 0.06},
}

// progressor reports the progress of one heap's analysis to Options.Progress,
// Options.OnProgress and the progress function of the call running.
type progressor struct {
	size      int64
	dumpStart int64
	progress  func(string, float64)
	on        func(Progress)
	call      func(string, float64) // the running call's (Analyze's, NewReport's)
}

// overall is the share of the whole analysis done at done of stage.
func overall(stage string, done float64) float64 {
	var before float64
	for _, s := range stageShares {
		if s.stage == stage {
			return min(before+s.share*min(max(done, 0), 1), 1)
		}
		before += s.share
	}
	return before
}

// report tells the progress of stage (done of it, read bytes of the dump) and
// returns the error that stops the work once Options.Context is done.
func (h *Heap) report(stage string, done float64, read int64) error {
	p := &h.prog
	if p.progress != nil {
		p.progress(stage, done)
	}
	if p.call != nil {
		p.call(stage, done)
	}
	if p.on != nil {
		p.on(Progress{Stage: stage, Done: done, Read: read, Size: p.size, Overall: overall(stage, done)})
	}
	return h.stopped()
}

// reportPass tells how far a pass over the dump is.
func (h *Heap) reportPass(stage string, s *scanner) error {
	at := s.pos()
	span := max(h.prog.size-h.prog.dumpStart, 1)
	return h.report(stage, float64(at-h.prog.dumpStart)/float64(span), at)
}
