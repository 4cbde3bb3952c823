package web

import (
	"net/http"
	"net/url"

	"github.com/leakui/leakui/internal/golden"
)

// incidents records the answers of the incident pages and API after every
// other answer is recorded (so that no page recorded before shows an open
// incident): an incident made of the session's reports and a lab run, its
// page, Markdown, JSON, timeline image, the cards of reports and runs, the list and search, the dashboard
// and a report page with an incident open, the writes, and refusals.
func (g *goldenSession) incidents() {
	const js, formType = "application/json", "application/x-www-form-urlencoded"
	form := func(kv ...string) []byte {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], g.expand(kv[i+1]))
		}
		return []byte(v.Encode())
	}
	post := func(name, target string, body []byte, contentType string) {
		g.do(name, http.MethodPost, target, []byte(g.expand(string(body))), "Content-Type", contentType)
	}
	post("incidents/create", "/api/incidents", []byte(`{"slug":"checkout-oom","title":"checkout pods OOM-killed","ticket_url":"https://tickets.example.com/INC-1234"}`), js)
	post("incidents/create-form", "/i", form("slug", "api-latency", "title", "API latency <b>doubled</b>"), formType)
	post("incidents/create-bad-ticket", "/api/incidents", []byte(`{"slug":"x","title":"x","ticket_url":"javascript:alert(1)"}`), js)
	post("incidents/create-form-bad-slug", "/i", form("slug", "../x", "title", "x"), formType)

	post("incidents/attach-series", "/api/incidents/checkout-oom/evidence", []byte(`{"ref":"{heap-series}"}`), js)
	post("incidents/attach-capture-link", "/i/checkout-oom/evidence", form("ref", goldenBaseURL+"/r/{capture-pair}"), formType)
	post("incidents/attach-log", "/api/incidents/checkout-oom/evidence", []byte(`{"ref":"/r/{log-kafka}.md"}`), js)
	post("incidents/attach-goroutine-profile", "/api/incidents/checkout-oom/evidence", []byte(`{"ref":"{goroutine-profile}"}`), js)
	post("incidents/attach-dump-from-report", "/r/{dump}/incident", form("slug", "checkout-oom"), formType)
	post("incidents/attach-run-from-run", "/runs/{run:checkpoint}/incident", form("slug", "checkout-oom"), formType)
	post("incidents/attach-unknown", "/api/incidents/checkout-oom/evidence", []byte(`{"ref":"aaaaaaaaaaaaaaaaaaaaaaaaaa"}`), js)
	post("incidents/annotate", "/api/incidents/checkout-oom/annotations", []byte(`{"at":"2025-01-02T03:30:00Z","text":"deployed the fix","author":"sre"}`), js)
	post("incidents/annotate-form", "/i/checkout-oom/annotations", form("at", "2025-01-02T03:40", "text", "<script>restarted</script> broker-3"), formType)
	post("incidents/annotate-bad-time", "/api/incidents/checkout-oom/annotations", []byte(`{"at":"yesterday","text":"x"}`), js)

	g.get("incidents/page", "/i/checkout-oom")
	g.get("incidents/page-2", "/i/checkout-oom?after=garbage")
	g.get("incidents/markdown", "/i/checkout-oom.md")
	g.get("incidents/json", "/i/checkout-oom.json")
	g.get("incidents/api-json", "/api/incidents/checkout-oom")
	g.get("incidents/timeline-png", "/i/checkout-oom/timeline.png")
	g.get("incidents/timeline-png-small", "/i/checkout-oom/timeline.png?w=600&h=300")
	g.get("incidents/timeline-png-bad-size", "/i/checkout-oom/timeline.png?w=5")
	g.get("incidents/not-found", "/i/nope")
	g.get("incidents/list", "/i")
	g.get("incidents/search-verdict", "/i?q=leak")
	g.get("incidents/search-nothing", "/i?q=nothing-like-it")
	g.get("incidents/api-list", "/api/incidents")
	g.get("incidents/dashboard", "/")
	g.get("incidents/report-page", "/r/{dump}")
	g.get("incidents/card-series", "/r/{heap-series}/card.png")
	g.get("incidents/card-capture", "/r/{capture-pair}/card.png")
	g.get("incidents/card-run", "/runs/{run:checkpoint}/card.png")
	g.get("incidents/card-not-found", "/r/aaaaaaaaaaaaaaaaaaaaaaaaaa/card.png")

	g.do("incidents/detach", http.MethodDelete, "/api/incidents/checkout-oom/evidence/report/{dump}", nil)
	post("incidents/detach-form", "/i/checkout-oom/evidence/detach", form("kind", "run", "id", "{run:checkpoint}"), formType)
	g.do("incidents/delete-annotation", http.MethodDelete, "/api/incidents/checkout-oom/annotations/"+golden.StableID("note", 1), nil)
	post("incidents/delete-annotation-form", "/i/checkout-oom/annotations/"+golden.StableID("note", 2)+"/delete", nil, formType)
	post("incidents/resolve", "/api/incidents/checkout-oom/state", []byte(`{"state":"resolved"}`), js)
	post("incidents/reopen-form", "/i/checkout-oom/state", form("state", "open"), formType)
}
