package kind

import "encoding/json"

// JSONCost estimates the bytes a cached result of small tables (numbers, short
// strings, slices) holds as twice its JSON encoding: an int64 takes 8 bytes in
// memory and 1 to 20 in JSON, a string about its length in both, and slice and
// struct headers are what the factor of two covers. Only the length is kept.
func JSONCost(v any) int64 {
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
