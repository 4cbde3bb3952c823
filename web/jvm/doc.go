// Package jvm is the JVM's outputs as kinds of evidence in the web: native
// memory tracking (NMT: jcmd VM.native_memory summaries and their diffs, and the
// figures and native-leak view a lab run and a capture bundle show of them) and
// thread dumps (Threads: jstack, jcmd Thread.print, SIGQUIT output; one dump or
// a diff), each with its pages, JSON and Markdown. Class histograms are still
// adapted in the web root. Each implements kind.Kind; the web root registers
// them.
package jvm
