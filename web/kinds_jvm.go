package web

import "github.com/leakui/leakui/analyze"

// The JVM inputs plug into the upload path and the report pages from here. (The
// file's name sorts after kinds.go, so its init runs later and the upload page lists
// the JVM inputs after the pprof profiles.)
func init() {
	planners[analyze.KindJavaHistogram] = (*Server).planJavaHistograms
	planners[analyze.KindJavaThreads] = (*Server).planJavaThreads
	planners[analyze.KindJavaNMT] = (*Server).planJavaNMT
	histograms := reportKind{
		show:     (*Server).showJavaHistograms,
		json:     (*Server).javaHistogramsJSON,
		markdown: (*Server).javaHistogramsMarkdown,
		summary:  javaHistogramSummaryLine,
	}
	threads := reportKind{
		show:     (*Server).showJavaThreads,
		json:     (*Server).javaThreadsJSONOf,
		markdown: (*Server).javaThreadsMarkdown,
		summary:  javaThreadsSummaryLine,
	}
	nmt := reportKind{
		show:     (*Server).showJavaNMT,
		json:     (*Server).javaNMTJSONOf,
		markdown: (*Server).javaNMTMarkdown,
		summary:  javaNMTSummaryLine,
	}
	reportKinds[kindJavaHistogram], reportKinds[kindJavaHistogramDiff] = histograms, histograms
	reportKinds[kindJavaThreads], reportKinds[kindJavaThreadsDiff] = threads, threads
	reportKinds[kindJavaNMT], reportKinds[kindJavaNMTDiff] = nmt, nmt
	acceptedKinds = append(acceptedKinds,
		"JVM class histograms: jmap -histo[:live], jcmd GC.class_histogram, jmap -F, JDK 5 to 25 (two or more make a diff of what grew)",
		"JVM thread dumps: jstack, jcmd Thread.print, SIGQUIT output in a log, JDK 5 to 25 (two make a diff of new and grown groups)",
		"JVM native memory tracking: jcmd VM.native_memory summary or summary.diff, in any scale (two make a diff)")
}
