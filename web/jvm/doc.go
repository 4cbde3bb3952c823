// Package jvm is the JVM's outputs as kinds of evidence in the web, each a
// kind.Kind the web root registers: class histograms (Histograms: jmap -histo,
// jcmd GC.class_histogram; one histogram, a diff or a series), thread dumps
// (Threads: jstack, jcmd Thread.print, SIGQUIT output; one dump or a diff) and
// native memory tracking (NMT: jcmd VM.native_memory summaries and their diffs,
// and the figures and native-leak view a lab run and a capture bundle show of
// them), each with its pages, JSON and Markdown. What heap dump comparisons
// share with them lives in web/snapshot and web/classhist.
package jvm
