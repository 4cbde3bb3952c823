package web

import "net/http"

// ops reaches the operations page without recording its answer, which is
// this moment's (the time, the budget held, the jobs of the queues);
// TestOpsPage checks what it shows against /readyz and the budget.
func (g *goldenSession) ops() {
	g.t.Helper()
	if a := g.get("", OpsURL); a.status != http.StatusOK {
		g.t.Errorf("GET /ops: %d %.300s", a.status, a.body)
	}
}
