package web

import "net/http"

// ops reaches the operations page and its JSON twin without recording their
// answers, which are this moment's (the time, the budget held, the jobs of
// the queues); TestOpsPage checks what they show against /readyz, the budget
// and each other.
func (g *goldenSession) ops() {
	g.t.Helper()
	if a := g.get("", OpsURL); a.status != http.StatusOK {
		g.t.Errorf("GET /ops: %d %.300s", a.status, a.body)
	}
	if a := g.get("", OpsJSONURL); a.status != http.StatusOK {
		g.t.Errorf("GET /ops.json: %d %.300s", a.status, a.body)
	}
}
