// Package classhist owns class histograms as several kinds show them: the
// JVM's histogram reports, thread dumps (the histogram a dump may carry), heap
// dump comparisons and lab runs: a loaded set of histograms (Histograms) with
// its pages, diff (cached), JSON, Markdown and series over the snapshots; the
// class and change tables, their order, a histogram's headline, figures and
// total check.
package classhist
