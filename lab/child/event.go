package child

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Event kinds written by a workload.
const (
	// EventReady is written once the pprof endpoint listens; Pprof holds its address.
	EventReady = "ready"
	// EventProgress is written after every unit of work (a cycle, a segment).
	EventProgress = "progress"
	// EventDone is written once after the last unit of work, with the totals.
	EventDone = "done"
	// EventError is written when the workload fails; Message says why.
	EventError = "error"
)

// Event is one line of a workload's event stream.
//
// Step and Steps are the generic progress (k of n) every workload fills in; Counters
// carry the workload's own numbers (consumer_starts, iterators_opened, …) and are
// written as top-level keys, so a progress line reads
// {"event":"progress","cycle":3,"cycles":10,"consumer_starts":3,…}.
type Event struct {
	Kind     string
	Time     time.Time
	Pprof    string
	Message  string
	Step     int64
	Steps    int64
	Memory   Memory
	Counters map[string]int64
	// StepName names Step and Steps in the JSON form ("cycle" → "cycle"/"cycles",
	// "segment" → "segments_done"/"segments"); empty means "step"/"steps".
	StepName string
}

// reserved keys that are not counters.
var reserved = map[string]bool{
	"event": true, "time": true, "pprof": true, "message": true, "step": true,
	"steps": true, "goroutines": true, "heap_inuse": true, "heap_sys": true, "rss": true,
	"step_name": true,
}

// MarshalJSON writes the event as one flat JSON object.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{"event": e.Kind}
	if !e.Time.IsZero() {
		m["time"] = e.Time.UTC().Format(time.RFC3339Nano)
	}
	if e.Pprof != "" {
		m["pprof"] = e.Pprof
	}
	if e.Message != "" {
		m["message"] = e.Message
	}
	if e.Kind == EventProgress || e.Kind == EventDone {
		m["step"], m["steps"] = e.Step, e.Steps
		if e.StepName != "" {
			m["step_name"] = e.StepName
		}
		m["goroutines"] = e.Memory.Goroutines
		m["heap_inuse"] = e.Memory.HeapInuse
		m["heap_sys"] = e.Memory.HeapSys
		m["rss"] = e.Memory.RSS
	}
	keys := make([]string, 0, len(e.Counters))
	for k := range e.Counters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if reserved[k] {
			return nil, fmt.Errorf("workload: counter name %q is reserved", k)
		}
		m[k] = e.Counters[k]
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a flat JSON object back: known keys into fields, every other
// integer into Counters.
func (e *Event) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Event{}
	str := func(k string) (string, error) {
		var s string
		if v, ok := raw[k]; ok {
			if err := json.Unmarshal(v, &s); err != nil {
				return "", fmt.Errorf("workload event: %s: %w", k, err)
			}
		}
		return s, nil
	}
	num := func(k string) (int64, error) {
		var n int64
		if v, ok := raw[k]; ok {
			if err := json.Unmarshal(v, &n); err != nil {
				return 0, fmt.Errorf("workload event: %s: %w", k, err)
			}
		}
		return n, nil
	}
	var err error
	if e.Kind, err = str("event"); err != nil {
		return err
	}
	if e.Kind == "" {
		return fmt.Errorf("workload event: no \"event\" key")
	}
	if t, err := str("time"); err != nil {
		return err
	} else if t != "" {
		if e.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return fmt.Errorf("workload event: time: %w", err)
		}
		// Written back in UTC, a time of year 0 or 9999 with an offset would
		// fall in year -1 or 10000, which RFC 3339 cannot write.
		if y := e.Time.UTC().Year(); y < 0 || y > 9999 {
			return fmt.Errorf("workload event: time %q is outside the years 0000 to 9999 in UTC", t)
		}
	}
	if e.Pprof, err = str("pprof"); err != nil {
		return err
	}
	if e.Message, err = str("message"); err != nil {
		return err
	}
	if e.StepName, err = str("step_name"); err != nil {
		return err
	}
	for k, dst := range map[string]*int64{
		"step": &e.Step, "steps": &e.Steps, "goroutines": &e.Memory.Goroutines,
		"heap_inuse": &e.Memory.HeapInuse, "heap_sys": &e.Memory.HeapSys, "rss": &e.Memory.RSS,
	} {
		if *dst, err = num(k); err != nil {
			return err
		}
	}
	for k, v := range raw {
		if reserved[k] {
			continue
		}
		var n int64
		if json.Unmarshal(v, &n) != nil {
			continue // a field added later that is not a counter
		}
		if e.Counters == nil {
			e.Counters = make(map[string]int64)
		}
		e.Counters[k] = n
	}
	return nil
}
