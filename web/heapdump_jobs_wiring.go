package web

import (
	"context"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/web/heapdumps"
)

// What the background analyses of heap dumps (heapDumpJobs) use of the heap
// dumps kind: the summary they store, the one-at-a-time semaphore, the
// report's options, the analysis's budget and the index they store.
type (
	heapDumpSummary = heapdumps.Summary
	heapDumpPending = heapdumps.Pending
)

var (
	heapDumpAnalyses      = heapdumps.Analyses
	heapDumpReportOptions = heapdumps.ReportOptions
)

func heapDumpSummaryOf(rep *hprof.Report) *heapDumpSummary { return heapdumps.SummaryOf(rep) }

func (s *Server) heapDumpBudget(opt *hprof.Options) (finish func(), err error) {
	return s.heapDumps.Budget(opt)
}

func (s *Server) storeHeapDumpIndex(ctx context.Context, id string, h *hprof.Heap, progress func(string, float64)) (bool, error) {
	return s.heapDumps.StoreIndex(ctx, id, h, progress)
}
