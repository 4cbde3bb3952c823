// Package jvm is the JVM's outputs as kinds of evidence in the web. It holds
// native memory tracking (NMT: jcmd VM.native_memory summaries and their diffs,
// their pages, JSON and Markdown, and the figures and native-leak view a lab
// run and a capture bundle show of them); class histograms and thread dumps are
// still adapted in the web root. It implements kind.Kind; the web root
// registers it.
package jvm
