package web

import (
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/web/kind"
)

// logReportCost is what a cached log count is charged to the server's memory
// budget: its tables (patterns, pairs and their unclosed keys, buckets, files,
// the overview) estimated by jsonCost.
func logReportCost(r *logs.Report) int64 { return kind.JSONCost(r) }

// logCacheBytes bounds what the cache of counted log reports keeps.
const logCacheBytes = 64 << 20
