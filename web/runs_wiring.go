package web

import (
	"context"

	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/store"
	webbundles "github.com/leakui/leakui/web/bundles"
	webjvm "github.com/leakui/leakui/web/jvm"
	"github.com/leakui/leakui/web/runs"
)

// kindRun is the report a lab run makes when it ends (web/runs); the
// recorder stores it, with the JVM reports a jvm run's report made.
const kindRun = runs.ReportKind

type runJVMRef = runs.JVMRef

// jvmReports makes the reports of a jvm run's captures of its JVM
// (runs.Kind.JVMReports).
func (rr runRecorder) jvmReports(ctx context.Context, runID string, arts []store.RunArtifact) ([]runJVMRef, error) {
	return rr.s.runs.JVMReports(ctx, runID, arts)
}

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
