package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
)

// GoCapture is a Go bundle parsed: its snapshots in the order taken.
type GoCapture struct {
	Snapshots []*GoSnapshot `json:"snapshots"`
	Problems  []string      `json:"problems,omitempty"`
}

// GoSnapshot is one snapshot of a Go process: its heap and goroutine profiles,
// the goroutines the runtime proved leaked where the endpoint serves them, and
// the runtime's memory statistics. A figure the snapshot lacks is -1.
type GoSnapshot struct {
	Number int       `json:"number"`
	Time   time.Time `json:"time"`
	// HeapInuse and HeapObjects are the heap profile's inuse_space and
	// inuse_objects totals.
	HeapInuse   int64 `json:"heap_inuse"`
	HeapObjects int64 `json:"heap_objects"`
	Goroutines  int64 `json:"goroutines"`
	// Leaked is the goroutineleak profile's total: goroutines the garbage
	// collector proved can never run again.
	Leaked   int64       `json:"leaked"`
	MemStats *GoMemStats `json:"memstats,omitempty"`

	Heap      *pprof.Profile `json:"-"`
	Goroutine *pprof.Profile `json:"-"`
	Leak      *pprof.Profile `json:"-"`
}

// GoMemStats are the runtime.MemStats fields a bundle reports, in bytes (or
// counts), -1 when absent.
type GoMemStats struct {
	HeapAlloc   int64 `json:"HeapAlloc"`
	HeapInuse   int64 `json:"HeapInuse"`
	HeapSys     int64 `json:"HeapSys"`
	HeapObjects int64 `json:"HeapObjects"`
	StackInuse  int64 `json:"StackInuse"`
	Sys         int64 `json:"Sys"`
	NumGC       int64 `json:"NumGC"`
}

// ParseMemStats reads the runtime's memory statistics: the "memstats" object of
// /debug/vars (expvar's JSON, or that object alone), or the "# runtime.MemStats"
// lines /debug/pprof/heap?debug=1 ends with ("# HeapInuse = 1234"). It fails with
// ErrEmpty on no input and ErrUnsupportedKind when neither has a HeapSys.
func ParseMemStats(b []byte) (*GoMemStats, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, analyze.ErrEmpty
	}
	m := &GoMemStats{HeapAlloc: -1, HeapInuse: -1, HeapSys: -1, HeapObjects: -1, StackInuse: -1, Sys: -1, NumGC: -1}
	fields := map[string]*int64{"HeapAlloc": &m.HeapAlloc, "HeapInuse": &m.HeapInuse, "HeapSys": &m.HeapSys,
		"HeapObjects": &m.HeapObjects, "StackInuse": &m.StackInuse, "Sys": &m.Sys, "NumGC": &m.NumGC}
	if t := bytes.TrimSpace(b); t[0] == '{' {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(t, &doc); err != nil {
			return nil, fmt.Errorf("%w: memory statistics: %v", analyze.ErrMalformed, err)
		}
		if inner, ok := doc["memstats"]; ok {
			doc = nil
			if err := json.Unmarshal(inner, &doc); err != nil {
				return nil, fmt.Errorf("%w: memory statistics: %v", analyze.ErrMalformed, err)
			}
		}
		for k, p := range fields {
			if raw, ok := doc[k]; ok {
				v, err := strconv.ParseUint(string(raw), 10, 63)
				if err != nil {
					return nil, fmt.Errorf("%w: memory statistics: %s is %q, not a count", analyze.ErrMalformed, k, clip(string(raw)))
				}
				*p = int64(v)
			}
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			l, ok := bytes.CutPrefix(sc.Bytes(), []byte("# "))
			if !ok {
				continue
			}
			k, v, ok := bytes.Cut(l, []byte(" = "))
			if p, known := fields[string(k)]; ok && known {
				n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 63)
				if err != nil {
					return nil, fmt.Errorf("%w: memory statistics: %s is %q, not a count", analyze.ErrMalformed, k, clip(string(v)))
				}
				*p = int64(n)
			}
		}
	}
	if m.HeapSys < 0 {
		return nil, fmt.Errorf("%w: no runtime.MemStats (a HeapSys field) in the memory statistics", analyze.ErrUnsupportedKind)
	}
	return m, nil
}

// parseGo reads each snapshot of a Go bundle. Only the budget's refusal fails
// it; a profile that does not parse is a problem, and its figures are -1.
func parseGo(b *Bundle, limit int64, budget *analyze.Budget) (*GoCapture, error) {
	c := &GoCapture{}
	for n := 1; n <= b.Manifest.Snapshots(); n++ {
		s := &GoSnapshot{Number: n, HeapInuse: -1, HeapObjects: -1, Goroutines: -1, Leaked: -1, Time: b.Manifest.Started}
		if st, ok := b.Manifest.Step(StepHeap, n); ok {
			s.Time = st.Started
		}
		profile := func(step string) (*pprof.Profile, error) {
			data, st, ok := b.File(step, n)
			if !ok {
				if st.Error != "" && step != StepGoroutineLeak {
					c.Problems = append(c.Problems, fmt.Sprintf("snapshot %d: %s failed: %s", n, step, st.Error))
				}
				return nil, nil
			}
			p, err := pprof.Open(pprof.Reader(bytes.NewReader(data)), pprof.Options{Limit: limit, Budget: budget})
			if err == nil {
				err = budget.Charge(p.MemSize()) // what the capture keeps
			}
			if err != nil {
				if errors.Is(err, analyze.ErrTooLarge) || errors.Is(err, analyze.ErrBusy) {
					return nil, err
				}
				c.Problems = append(c.Problems, fmt.Sprintf("snapshot %d: %s: %v", n, step, err))
				return nil, nil
			}
			return p, nil
		}
		var err error
		if s.Heap, err = profile(StepHeap); err != nil {
			return nil, err
		}
		if s.Heap != nil {
			s.HeapInuse, s.HeapObjects = total(s.Heap, "inuse_space"), total(s.Heap, "inuse_objects")
		}
		if s.Goroutine, err = profile(StepGoroutine); err != nil {
			return nil, err
		}
		if s.Goroutine != nil {
			s.Goroutines = total(s.Goroutine, "goroutine")
		}
		if s.Leak, err = profile(StepGoroutineLeak); err != nil {
			return nil, err
		}
		if s.Leak != nil {
			s.Leaked = total(s.Leak, "goroutineleak")
			if s.Leaked < 0 {
				s.Leaked = total(s.Leak, "goroutine")
			}
		}
		if data, _, ok := b.File(StepMemStats, n); ok {
			if s.MemStats, err = ParseMemStats(data); err != nil {
				c.Problems = append(c.Problems, fmt.Sprintf("snapshot %d: %s: %v", n, StepMemStats, err))
			}
		}
		c.Snapshots = append(c.Snapshots, s)
	}
	return c, nil
}

// total is a profile's total of the sample type called name, -1 when it has
// none.
func total(p *pprof.Profile, name string) int64 {
	si, err := p.SampleIndex(name)
	if err != nil {
		return -1
	}
	return p.SampleTypes()[si].Total
}
