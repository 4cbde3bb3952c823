// Package classhist owns class histograms as several kinds show them: the
// JVM's histogram reports, thread dumps (the histogram a dump may carry), heap
// dump comparisons and lab runs: the class table, its order, a histogram's
// headline and its total check.
package classhist
