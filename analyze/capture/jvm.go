package capture

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/jvm"
)

// JVMCapture is a JVM bundle parsed: each step's output read by its parser.
// A step that failed, or whose output a parser refuses, leaves its field nil
// and says why in Problems; the rest still counts.
type JVMCapture struct {
	Status    *ProcStatus    `json:"status,omitempty"`
	Rollup    *SmapsRollup   `json:"smaps_rollup,omitempty"`
	NMT       *jvm.NMT       `json:"nmt,omitempty"`
	HeapInfo  *jvm.HeapInfo  `json:"heap_info,omitempty"`
	Histogram *jvm.Histogram `json:"-"`
	// HeapResident is the resident bytes of the heap's reserved range in
	// /proc/PID/smaps, -1 when unknown.
	HeapResident int64 `json:"heap_resident"`
	// Threads is the thread dump's thread count, -1 without one.
	Threads int64 `json:"threads"`
	// Version is VM.version's JVM line; Flags VM.flags's flags.
	Version string `json:"version,omitempty"`
	Flags   string `json:"flags,omitempty"`
	// Problems say what could not be read and why.
	Problems []string `json:"problems,omitempty"`
}

// parseJVM reads each step's output of a JVM bundle. Only the budget's
// refusal fails it.
func parseJVM(b *Bundle, budget *analyze.Budget) (*JVMCapture, error) {
	c := &JVMCapture{HeapResident: -1, Threads: -1}
	problem := func(step string, err error) error {
		if errors.Is(err, analyze.ErrTooLarge) || errors.Is(err, analyze.ErrBusy) {
			return err
		}
		c.Problems = append(c.Problems, fmt.Sprintf("%s: %v", step, err))
		return nil
	}
	each := func(step string, parse func([]byte) error) error {
		data, s, ok := b.File(step, 0)
		if !ok {
			if s.Error != "" {
				c.Problems = append(c.Problems, fmt.Sprintf("%s failed: %s", step, s.Error))
			}
			return nil
		}
		if err := parse(data); err != nil {
			return problem(step, err)
		}
		return nil
	}
	var smaps []byte
	steps := []struct {
		name  string
		parse func([]byte) error
	}{
		{StepProcStatus, func(d []byte) (err error) { c.Status, err = ParseStatus(d); return }},
		{StepSmapsRollup, func(d []byte) (err error) { c.Rollup, err = ParseSmapsRollup(d); return }},
		{StepSmaps, func(d []byte) error { smaps = d; return nil }},
		{StepNMT, func(d []byte) error {
			ns, err := jvm.ParseNMTsWithin(bytes.NewReader(d), budget)
			if err == nil {
				c.NMT = ns[len(ns)-1]
			}
			return err
		}},
		{StepHeapInfo, func(d []byte) (err error) { c.HeapInfo, err = jvm.ParseHeapInfo(bytes.NewReader(d)); return }},
		{StepClassHistogram, func(d []byte) error {
			hs, err := jvm.ParseHistogramsWithin(bytes.NewReader(d), budget)
			if err == nil {
				c.Histogram = hs[len(hs)-1]
			}
			return err
		}},
		{StepThreads, func(d []byte) error { c.Threads = countThreads(d); return nil }},
		{StepVersion, func(d []byte) error { c.Version = jcmdBody(d, 2); return nil }},
		{StepFlags, func(d []byte) error { c.Flags = jcmdBody(d, 1); return nil }},
	}
	for _, s := range steps {
		if err := each(s.name, s.parse); err != nil {
			return nil, err
		}
	}
	if h := c.HeapInfo; h != nil && h.End > h.Start && smaps != nil {
		n, err := ResidentIn(smaps, h.Start, h.End)
		if err != nil {
			if err := problem(StepSmaps, err); err != nil {
				return nil, err
			}
		} else {
			c.HeapResident = n
		}
	}
	return c, nil
}

// countThreads counts the thread lines of a thread dump: lines that start with
// a quoted name and hold "tid=", what `grep -c '^".*tid='` counts.
func countThreads(d []byte) int64 {
	var n int64
	for l := range bytes.SplitSeq(d, []byte("\n")) {
		if len(l) > 0 && l[0] == '"' && bytes.Contains(l, []byte("tid=")) {
			n++
		}
	}
	return n
}

// jcmdBody is the first lines of a jcmd output after its "PID:" line, joined.
func jcmdBody(d []byte, lines int) string {
	var out []string
	for l := range strings.SplitSeq(string(d), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || (len(out) == 0 && strings.HasSuffix(l, ":") && strings.Trim(l, "0123456789:") == "") {
			continue
		}
		out = append(out, clip(l))
		if len(out) == lines {
			break
		}
	}
	return strings.Join(out, " ")
}

// Snapshot is the capture's figures for jvm.AnalyzeNative, at the capture's
// time (the /proc step's).
func (c *JVMCapture) Snapshot(m *Manifest) jvm.NativeSnapshot {
	s := jvm.NativeSnapshot{RSS: -1, NMT: c.NMT, Heap: -1, Histogram: c.Histogram, Time: m.Started}
	if st, ok := m.Step(StepProcStatus, 0); ok {
		s.Time = st.Started
	}
	if c.Status != nil {
		s.RSS = c.Status.VmRSS
	}
	switch {
	case c.HeapResident >= 0:
		s.Heap, s.HeapSource = c.HeapResident, jvm.HeapFromSmaps
	case c.HeapInfo != nil:
		s.Heap, s.HeapSource = c.HeapInfo.Used, jvm.HeapFromUsed
	case c.Histogram != nil:
		s.Heap, s.HeapSource = c.Histogram.TotalBytes, jvm.HeapFromHistogram
	}
	return s
}
