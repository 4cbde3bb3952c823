// Package page owns what every handler of the web shares and the root does not:
// the handler shape (HandlerFunc) and the rendering contract (Renderer, Fragment,
// JSON, ValidUTF8, WantsJSON), the URLs of every route (urls.go), the base URL
// and client address a request carries (Absolute, ClientIP), server-sent events
// (StartEventStream, Pause), the query readers (QueryRows, QueryFile) and the
// text and number formatting the kinds of evidence share (format.go).
package page
