package child

import (
	"encoding/json"
	"maps"
	"testing"
)

// FuzzEventJSON reads any line as the lab reads a child's events: nothing
// panics, and an event read once survives writing and reading again unchanged
// (what the JSON form carries for its kind is a fixed point).
func FuzzEventJSON(f *testing.F) {
	f.Add([]byte(`{"event":"progress","step":3,"steps":10,"step_name":"cycle","goroutines":42,"heap_inuse":1048576,"rss":9437184,"consumer_starts":3}`))
	f.Add([]byte(`{"event":"ready","pprof":"127.0.0.1:6060","time":"2026-01-02T03:04:05.000000006Z"}`))
	f.Add([]byte(`{"event":"done","message":"<b>x</b>\u2028","step":"3"}`))
	f.Add([]byte(`{"event":"progress","time":"0000-01-01T00:00:00+01:00"}`))
	f.Add([]byte(`{"step":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var first Event
		if json.Unmarshal(line, &first) != nil {
			return
		}
		b, err := json.Marshal(first)
		if err != nil {
			return // a counter named like a reserved key cannot be written back
		}
		var second Event
		if err := json.Unmarshal(b, &second); err != nil {
			t.Fatalf("%s was read, written as %s, and that cannot be read: %v", line, b, err)
		}
		b2, err := json.Marshal(second)
		if err != nil {
			t.Fatal(err)
		}
		var third Event
		if err := json.Unmarshal(b2, &third); err != nil {
			t.Fatal(err)
		}
		if third.Kind != second.Kind || !third.Time.Equal(second.Time) || third.Message != second.Message ||
			third.Step != second.Step || third.Memory != second.Memory || !maps.Equal(third.Counters, second.Counters) {
			t.Fatalf("not a fixed point: %+v → %+v", second, third)
		}
	})
}
