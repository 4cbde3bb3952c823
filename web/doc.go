// Package web is leakui's HTTP server: the chi router and its middleware, the
// handlers of the pages and the JSON API, the one table that maps errors to HTTP
// statuses, and the hashed static assets. Pages are templ components from
// web/view, rendered into a buffer first so that an error can still become a proper
// status.
//
// The store is reached through the Store interface declared here, with only the
// methods the handlers need.
package web
