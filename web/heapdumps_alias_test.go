package web

import (
	"encoding/json"

	"github.com/leakui/leakui/web/background"
	"github.com/leakui/leakui/web/heapdumps"
)

// The heap dumps kind's names the root's heap dump tests read.
const (
	kindHeapDump           = heapdumps.ReportDump
	kindHeapDumpDiff       = heapdumps.ReportDiff
	heapDumpIndexName      = heapdumps.IndexName
	heapDumpRows           = heapdumps.Rows
	heapDumpCompareClasses = heapdumps.CompareClasses
)

var heapDumpReport = heapdumps.StoredReport

const (
	heapChainEnds = heapdumps.ChainEnds
	heapDomPage   = heapdumps.DomPage
	heapPathPage  = heapdumps.PathPage
)

type (
	heapJobState       = heapdumps.JobState
	heapDumpSummary    = heapdumps.Summary
	heapDomJSON        = heapdumps.DomJSON
	heapPathJSON       = heapdumps.PathJSON
	heapDumpBrief      = heapdumps.Brief
	heapDumpsSummary   = heapdumps.ComparisonSummary
	heapRetainedChange = heapdumps.RetainedChange
)

var (
	heapDomURL            = heapdumps.DomURL
	heapPathURL           = heapdumps.PathURL
	heapDumpAnalyses      = heapdumps.Analyses
	heapDumpReportOptions = heapdumps.ReportOptions
	heapDumpSummaryOf     = heapdumps.SummaryOf
	parseFailedReason     = background.ParseFailedReason
)

func heapDumpReportSummaryLine(raw json.RawMessage) string {
	return heapdumps.SummaryLine(raw, parseFailedReason)
}
