// Package web is leakui's HTTP server. The root owns what every page shares:
// the chi router and its middleware (client addresses, deadlines, throttles,
// rate limits, hosts, security headers), sign-in and sessions, health, the
// hashed static assets, uploads (receive, spool, classify), the report dispatch
// (/r/{ref}, /api/reports/{id}, /r/{id}.md, chart images, the dashboard's
// summary lines), the operations page (/ops: job queues, failed jobs, the
// watches' last scrapes, the memory budget), what it tells the metrics (the
// budget's refusals, the throttles' waits: Config.Metrics) and the wiring of
// the kinds of evidence.
//
// Each kind of evidence is a package of its own that implements kind.Kind
// (web/profiles, web/goroutines, web/jvm, web/heapdumps, web/bundles,
// web/logs, web/runs); the root registers them in one kind.Registry, in the
// order the upload page lists them, and dispatches every upload and every
// report view through it. It also wires what one kind shows of another (a
// run's log, profiles and JVM figures: runs.Parts) and the background work
// (heap dump analyses, retention, the lab's recorder and sweeper). What the
// kinds share lives in web/kind (the contract, the typed caches, Load),
// web/page, web/serrors, web/chart, web/groups, web/snapshot, web/classhist and
// web/view; no kind imports another kind.
//
// The store is reached through kind.Store (Store here), with only the methods
// the handlers need.
package web
