package web

import (
	"github.com/leakui/leakui/analyze/capture"
	webbundles "github.com/leakui/leakui/web/bundles"
	webjvm "github.com/leakui/leakui/web/jvm"
	"github.com/leakui/leakui/web/runs"
)

// kindRun is the report a lab run makes when it ends (web/runs).
const kindRun = runs.ReportKind

// runJVMFigures are the JVM kinds' plans and figures a jvm run's page, JSON,
// Markdown and report use: the root wires them, as runs imports no kind.
func runJVMFigures(bundles *webbundles.Kind) runs.JVMFigures {
	return runs.JVMFigures{
		NMTPrefix: webjvm.NMTPrefix, NMTPlan: webjvm.NMTPlanOf, NMTFigures: webjvm.NMTFigures,
		NMTDiffFigures: webjvm.NMTDiffFigures, NativeLeak: webjvm.NativeLeakView, HistogramPlan: webjvm.HistogramPlanOf,
		CaptureKind: webbundles.ReportKind, CapturePrefix: webbundles.Prefix, ParseCapture: bundles.ParseCapture,
		CaptureSummary: func(c *capture.Report) any { return webbundles.SummaryOf(c) },
		CaptureFigures: webbundles.JVMFigures,
		CaptureJSON: func(files []string, c *capture.Report, reportURL string) any {
			return &runCaptureJSON{Files: files, Summary: webbundles.SummaryOf(c), ReportURL: reportURL}
		},
		CaptureFacts: func(c *capture.Report) runs.CaptureFacts {
			sum := webbundles.SummaryOf(c)
			return runs.CaptureFacts{Sentence: sum.Sentence, UntrackedNativeDeltaBytes: sum.UntrackedNativeDeltaBytes, InflatersAlive: sum.InflatersAlive}
		},
	}
}

// runCaptureJSON is a jvm run's capture bundles: the capture report's verdict
// and key figures, and the report.
type runCaptureJSON struct {
	Files []string `json:"files"`
	webbundles.Summary
	ReportURL string `json:"report_url,omitempty"`
}
