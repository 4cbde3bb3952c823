package page

// The paths of leakui's routes, built in one place so that a route changes in one
// file. Ids are the store's random ids and artifacts' SHA-256 digests, which need
// no escaping; the page models carry these paths as strings and the templates
// mark them safe (templ.SafeURL) where they become links.

// ReportURL is a report's permanent page, /r/{id}.
func ReportURL(id string) string { return "/r/" + id }

// ReportMarkdownURL is a report's Markdown summary, /r/{id}.md.
func ReportMarkdownURL(id string) string { return ReportURL(id) + ".md" }

// ReportCompareURL is where a report's compare form posts, /r/{id}/compare.
func ReportCompareURL(id string) string { return ReportURL(id) + "/compare" }

// ReportJSONURL is a report's JSON twin, /api/reports/{id}.
func ReportJSONURL(id string) string { return "/api/reports/" + id }

// ArtifactURL downloads an uploaded file by its SHA-256, /a/{sha256}.
func ArtifactURL(sha256 string) string { return "/a/" + sha256 }

// RunURL is a lab run's page, /runs/{id}.
func RunURL(id string) string { return "/runs/" + id }

// RunEventsURL is a lab run's server-sent events, /runs/{id}/events.
func RunEventsURL(id string) string { return RunURL(id) + "/events" }

// RunCancelURL is where a run page's cancel button posts, /runs/{id}/cancel.
func RunCancelURL(id string) string { return RunURL(id) + "/cancel" }

// RunLogURL is where a run page's "count this log" form posts, /runs/{id}/log.
func RunLogURL(id string) string { return RunURL(id) + "/log" }

// RunJSONURL is a lab run as JSON, /api/runs/{id}.
func RunJSONURL(id string) string { return "/api/runs/" + id }

// ReportEventsURL streams a report's analysis, /r/{id}/events.
func ReportEventsURL(id string) string { return ReportURL(id) + "/events" }

// RunChartImageURL is the URL of one of a run's charts as an SVG image.
func RunChartImageURL(runID, chart string) string {
	return "/runs/" + runID + "/charts/" + chart + ".svg"
}

// ReportChartImageURL is the URL of a report's chart as an SVG image; query (the
// page's parameters: sample type, order) makes the image show what the page does.
func ReportChartImageURL(reportID, chart, query string) string {
	u := "/r/" + reportID + "/charts/" + chart + ".svg"
	if query != "" {
		u += "?" + query
	}
	return u
}
