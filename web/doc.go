// Package web is leakui's HTTP server. The root owns what every page shares:
// the chi router and its middleware (client addresses, deadlines, throttles,
// rate limits, hosts, security headers), sign-in and sessions, health, the
// hashed static assets, uploads (receive, spool, classify), the report dispatch
// (/r/{ref}, /api/reports/{id}, /r/{id}.md, chart images, the dashboard's
// summary lines) and the wiring of the kinds of evidence.
//
// Each kind of evidence is a package of its own that implements kind.Kind
// (web/profiles, web/goroutines, web/jvm, web/bundles, web/logs, and the kinds
// still adapted here in kinds.go: heap dumps and lab runs); the
// root registers them in one kind.Registry, in the order the upload page lists
// them, and dispatches every upload and every report view through it. What the
// kinds share lives in web/kind (the contract, the typed caches, Load),
// web/page, web/serrors, web/chart, web/groups, web/snapshot, web/classhist and
// web/view; no kind imports another kind.
//
// The store is reached through kind.Store (Store here), with only the methods
// the handlers need.
package web
