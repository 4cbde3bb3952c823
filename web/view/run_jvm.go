package view

// RunJVM is what a jvm run captured of its JVM, drawn with the report pages'
// own parts: its capture bundles (the untracked native memory, what NMT saw
// change, the -all class histogram), or for runs of earlier versions the jcmd
// outputs (the native memory summaries first → last, then the class histogram).
type RunJVM struct {
	Parts []RunJVMPart
}

// RunJVMPart is one kind of file a run captured of its JVM.
type RunJVMPart struct {
	// ID names the part in data-testid ("capture", "nmt", "histogram").
	ID, Title string
	// Files are the captured files it was read from, in capture order.
	Files []string
	// Headline is the JVM report's one-sentence verdict; Alarm marks a native
	// leak signature.
	Headline string
	Alarm    bool
	Figures  []JVMFigure
	Leak     *JVMNativeLeakView
	// Changes are the native memory categories that changed (NMT only).
	Changes []JVMNMTChangeRow
	// Classes are the histogram's first classes (histogram only).
	Classes *JVMClassTable
	// ReportURL opens the files as a JVM report; "" for runs whose report made
	// none.
	ReportURL, ReportLabel string
}
