package web

import "github.com/leakui/leakui/web/runs"

// runJSON is a run as GET /api/runs/{id} answers it, which the lab's tests read.
type runJSON = runs.APIRun
