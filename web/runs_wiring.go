package web

import "github.com/leakui/leakui/web/runs"

// kindRun is the report a lab run makes when it ends (web/runs); the
// recorder stores it.
const kindRun = runs.ReportKind
