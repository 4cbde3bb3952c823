// Package watch owns the web pages of the watches an operator declared: the
// list (/watch) with each watch's verdict, a sparkline of its suspect's
// series, the snapshots it holds and its last scrape, and a watch's page
// (/watch/{name}) with its verdict, the series analysis of the snapshots it
// holds (the chart of the totals, the suspects), the alerts its changes
// delivered and links to download each snapshot; both with JSON twins
// (/watch.json, /watch/{name}.json) and updating live while they are open.
//
// The watches run elsewhere (package watch/watcher, started by serve): this
// package reads their state, snapshots and deliveries through Source, which
// the web root is given in its Config, and it never scrapes or decides
// anything itself. The series shown are analyzed here from the snapshots
// held (analyze/pprof.Series, the analysis the watcher decides with),
// charged to the memory budget and cached until the watch's next scrape.
package watch
