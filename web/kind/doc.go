// Package kind is the contract between the web root and each kind of evidence:
// the Kind interface (plan an upload; show a report as a page, JSON, Markdown
// and a summary line; optionally, as Evidencer, judge a report for an
// incident) and the Registry, the one dispatch on kinds; what an
// upload becomes (Received, Upload, Plan), the JSON twin every report
// shares (ReportJSON, Artifact), what the handlers need of persistence (Store),
// the typed caches of parsed inputs, charged to the server's memory budget and
// reclaimed from when an analysis needs the room (Cache, Caches, JSONCost), and
// what every kind is built over (Deps: the store, the budget and one analysis's
// share of it, the limits, the renderer).
package kind
