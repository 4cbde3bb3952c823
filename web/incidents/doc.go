// Package incidents owns the web pages and API of incidents: the list of
// incidents with its search and the form that creates one (/i), an incident's
// page (/i/{slug}) with its one verdict (incident.Decide over the evidence
// attached, strongest first), the contradictions, one timeline of every source
// on a shared time axis (each series with its own y axis and unit, annotations
// and lab runs as vertical markers), the evidence without times beside it, the
// paged list of evidence and the annotations; its Markdown summary for the
// ticket (/i/{slug}.md), its JSON twin (/i/{slug}.json), the timeline as a PNG
// (/i/{slug}/timeline.png, the page's og:image), and the writes: resolve and
// reopen, annotate, attach and detach a report or run by id or URL, the
// "attach to incident" form of the report and run pages, and their cards
// (Card: what a report or run says, as a PNG for link unfurls).
//
// What an attached report or run says is not this package's: each kind of
// evidence judges its own reports with its own analysis and caches
// (kind.Evidencer), into a Source (kind.Evidence: an incident.Evidence and the
// series it contributes to the timeline); the web root dispatches to the kinds
// and to RunSource, which judges a lab run, and gives Resource the Loader that
// does it. The store keeps incidents, attachments and
// annotations; every read is paged (store.MaxIncidentPage), so an incident of
// any size answers a page, and the verdict is decided over at most one page.
package incidents
