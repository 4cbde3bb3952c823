// Package runs is the lab's runs in the web: starting, cancelling and following
// runs and live captures (/runs, /api/runs, /captures, /api/captures, the run's
// server-sent events), a run's page with its counters, charts, series, first →
// last diffs and the goroutines it proved leaked, the comparison of two runs of
// one workload (a headline from their numbers, its JSON and Markdown twins),
// the dashboard's lab block, and the report a run makes when it ends, a
// kind.Kind no upload makes. What a run shows of other kinds (its log, its
// JVM's figures, its profiles) comes through Parts, which the web root wires:
// runs imports no other kind. Its Recorder stores the lab's runs, their
// captures and their reports.
package runs
