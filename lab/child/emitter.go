package child

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Emitter writes a workload's events: JSON lines when JSON is set, otherwise a short
// human-readable line per event. It is safe for concurrent use.
type Emitter struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
	now  func() time.Time
	// acks, when set, is read after every ready and progress event: the workload
	// waits for one line before it goes on (see SyncWith).
	acks *bufio.Reader
}

// SyncWith makes the workload wait, after every ready and progress event, until a
// line arrives on r. The lab uses it to take a snapshot at exactly the step it
// wants, however fast the steps go: it answers at once except when it captures.
// When r ends (the lab is gone) the workload stops waiting.
func (e *Emitter) SyncWith(r io.Reader) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.acks = bufio.NewReader(r)
}

// NewEmitter returns an emitter writing to w; asJSON selects the JSON-lines form that
// the lab reads.
func NewEmitter(w io.Writer, asJSON bool) *Emitter {
	return &Emitter{w: w, json: asJSON, now: time.Now}
}

// Emit writes one event, stamping its time when unset.
func (e *Emitter) Emit(ev Event) error {
	if ev.Time.IsZero() {
		ev.Time = e.now()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	if e.json {
		var b []byte
		if b, err = json.Marshal(ev); err != nil {
			return err
		}
		_, err = e.w.Write(append(b, '\n'))
	} else {
		_, err = io.WriteString(e.w, humanLine(ev))
	}
	if err == nil && e.acks != nil && (ev.Kind == EventReady || ev.Kind == EventProgress) {
		if _, rerr := e.acks.ReadString('\n'); rerr != nil {
			e.acks = nil // the other side is gone: run on without waiting
		}
	}
	return err
}

// humanLine renders an event for a terminal.
func humanLine(ev Event) string {
	switch ev.Kind {
	case EventReady:
		return fmt.Sprintf("pprof endpoint: http://%s/debug/pprof/\n", ev.Pprof)
	case EventError:
		return fmt.Sprintf("error: %s\n", ev.Message)
	}
	name := ev.StepName
	if name == "" {
		name = "step"
	}
	s := fmt.Sprintf("%s %s %d/%d", ev.Kind, name, ev.Step, ev.Steps)
	for _, k := range sortedKeys(ev.Counters) {
		s += fmt.Sprintf(" %s=%d", k, ev.Counters[k])
	}
	s += fmt.Sprintf(" goroutines=%d heap_inuse=%s rss=%s\n", ev.Memory.Goroutines,
		mib(ev.Memory.HeapInuse), mib(ev.Memory.RSS))
	return s
}

func mib(n int64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
