package web

import (
	"encoding/json"

	"github.com/leakui/leakui/analyze/logs"
)

// jsonCost estimates the bytes a cached result of small tables (numbers, short
// strings, slices) holds as twice its JSON encoding: an int64 takes 8 bytes in
// memory and 1 to 20 in JSON, a string about its length in both, and slice and
// struct headers are what the factor of two covers. Only the length is kept.
func jsonCost(v any) int64 {
	var n byteCounter
	if err := json.NewEncoder(&n).Encode(v); err != nil {
		return 0
	}
	return 2 * int64(n)
}

// byteCounter is a writer that counts what is written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// logReportCost is what a cached log count is charged to the server's memory
// budget: its tables (patterns, pairs and their unclosed keys, buckets, files,
// the overview) estimated by jsonCost.
func logReportCost(r *logs.Report) int64 { return jsonCost(r) }

// logCacheBytes bounds what the cache of counted log reports keeps.
const logCacheBytes = 64 << 20
