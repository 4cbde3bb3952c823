package web

// The paths of leakui's routes, built in one place so that a route changes in one
// file. Ids are the store's random ids and artifacts' SHA-256 digests, which need
// no escaping; the page models carry these paths as strings and the templates
// mark them safe (templ.SafeURL) where they become links.

// reportURL is a report's permanent page, /r/{id}.
func reportURL(id string) string { return "/r/" + id }

// reportMarkdownURL is a report's Markdown summary, /r/{id}.md.
func reportMarkdownURL(id string) string { return reportURL(id) + ".md" }

// reportCompareURL is where a report's compare form posts, /r/{id}/compare.
func reportCompareURL(id string) string { return reportURL(id) + "/compare" }

// reportJSONURL is a report's JSON twin, /api/reports/{id}.
func reportJSONURL(id string) string { return "/api/reports/" + id }

// artifactURL downloads an uploaded file by its SHA-256, /a/{sha256}.
func artifactURL(sha256 string) string { return "/a/" + sha256 }

// runURL is a lab run's page, /runs/{id}.
func runURL(id string) string { return "/runs/" + id }

// runEventsURL is a lab run's server-sent events, /runs/{id}/events.
func runEventsURL(id string) string { return runURL(id) + "/events" }

// runCancelURL is where a run page's cancel button posts, /runs/{id}/cancel.
func runCancelURL(id string) string { return runURL(id) + "/cancel" }

// runLogURL is where a run page's "count this log" form posts, /runs/{id}/log.
func runLogURL(id string) string { return runURL(id) + "/log" }

// runJSONURL is a lab run as JSON, /api/runs/{id}.
func runJSONURL(id string) string { return "/api/runs/" + id }
