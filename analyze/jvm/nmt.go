package jvm

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// NMTCategory is one category of a native memory tracking report ("Java Heap",
// "Thread", "Internal", "Other"…). Every amount is in bytes, whatever scale the
// report was printed in; the deltas are those a summary.diff prints against its
// baseline (zero in a plain summary).
type NMTCategory struct {
	Name           string `json:"name"`
	Reserved       int64  `json:"reserved"`
	Committed      int64  `json:"committed"`
	ReservedDelta  int64  `json:"reserved_delta,omitempty"`
	CommittedDelta int64  `json:"committed_delta,omitempty"`
	// Malloc is the part allocated with malloc (its "(malloc=…)" line).
	Malloc      int64 `json:"malloc,omitempty"`
	MallocDelta int64 `json:"malloc_delta,omitempty"`
	// MmapReserved and MmapCommitted are the part mapped with mmap ("(mmap: …)").
	MmapReserved       int64 `json:"mmap_reserved,omitempty"`
	MmapCommitted      int64 `json:"mmap_committed,omitempty"`
	MmapCommittedDelta int64 `json:"mmap_committed_delta,omitempty"`
	// Arena is the part in arenas ("(arena=…)").
	Arena      int64 `json:"arena,omitempty"`
	ArenaDelta int64 `json:"arena_delta,omitempty"`
	// Count is the number of threads (Thread) or of classes (Class), when printed.
	Count      int64 `json:"count,omitempty"`
	CountDelta int64 `json:"count_delta,omitempty"`
}

// NMT is one report of `jcmd <pid> VM.native_memory summary` (or summary.diff,
// or the summary part of detail), in any scale: amounts are normalized to bytes.
type NMT struct {
	// Scale is the unit the report was printed in: "" for bytes, "KB", "MB", "GB".
	Scale string `json:"scale"`
	// Diff tells that the report is a summary.diff: the deltas are the change since
	// the baseline (`jcmd <pid> VM.native_memory baseline`).
	Diff bool      `json:"diff"`
	Time time.Time `json:"time,omitzero"`
	// Line is the line of "Native Memory Tracking:" in its file, from 1.
	Line int `json:"line"`
	// Origin is the JVM the report came from: jcmd's process id, when the file
	// has it.
	Origin
	TotalReserved       int64 `json:"total_reserved"`
	TotalCommitted      int64 `json:"total_committed"`
	TotalReservedDelta  int64 `json:"total_reserved_delta,omitempty"`
	TotalCommittedDelta int64 `json:"total_committed_delta,omitempty"`
	// Malloc is the total malloc line of JDK 17+ ("malloc: 61143309 #215943").
	Malloc      int64 `json:"malloc,omitempty"`
	MallocDelta int64 `json:"malloc_delta,omitempty"`
	// Categories are in the report's order.
	Categories []NMTCategory `json:"categories"`
	Warnings   []string      `json:"warnings,omitempty"`
}

// HeapCategory is the NMT category of the Java heap.
const HeapCategory = "Java Heap"

// Category returns the category of that name.
func (n *NMT) Category(name string) (NMTCategory, bool) {
	for _, c := range n.Categories {
		if c.Name == name {
			return c, true
		}
	}
	return NMTCategory{}, false
}

// ByCommitted returns the categories by committed bytes, largest first: the data of
// a bar chart.
func (n *NMT) ByCommitted() []NMTCategory {
	out := slices.Clone(n.Categories)
	slices.SortStableFunc(out, func(a, b NMTCategory) int { return cmp.Compare(b.Committed, a.Committed) })
	return out
}

// ParseNMTs reads every native memory tracking report in r (jcmd output with its
// "<pid>:" line, several reports appended to one file, the summary part of a detail
// report). r is text (see Decompress). It fails with ErrEmpty on no input,
// ErrUnsupportedKind without a "Native Memory Tracking:" line, and ErrMalformed for
// a report without a Total line or with amounts that do not fit.
func ParseNMTs(r io.Reader) ([]*NMT, error) {
	return ParseNMTsWithin(r, nil)
}

// ParseNMTsWithin is ParseNMTs within a memory budget (nil: unbounded), charged
// as ParseHistogramsWithin charges it: every report and category before it is
// kept.
func ParseNMTsWithin(r io.Reader, budget *analyze.Budget) ([]*NMT, error) {
	l := newLineReader(r, budget)
	defer l.meter.Settle()
	var (
		out   []*NMT
		cur   *NMT
		stamp time.Time
		done  bool  // past the summary of the current report (its details)
		pid   int64 // the process id of the last jcmd line
	)
	finish := func() error {
		if cur == nil {
			return nil
		}
		if cur.Categories == nil {
			return fmt.Errorf("%w: the native memory report at line %d has no Total line", analyze.ErrMalformed, cur.Line)
		}
		cur.check()
		out = append(out, cur)
		return nil
	}
	for l.next() {
		line := l.line()
		t := bytes.TrimSpace(line)
		switch {
		case bytes.Equal(t, []byte("Native Memory Tracking:")):
			if err := finish(); err != nil {
				return nil, err
			}
			if !l.charge(nmtCost) {
				continue
			}
			cur, done = &NMT{Line: l.num, Time: stamp, Origin: Origin{PID: pid}}, false
			stamp = time.Time{}
			continue
		case cur == nil || done:
			if ts, ok := timestampLine(line); ok {
				stamp = ts
			} else if p, ok := pidLine(line); ok {
				pid = p
			}
			continue
		}
		if ts, ok := timestampLine(line); ok {
			stamp = ts // the time of the next report, written between two
			continue
		}
		var err error
		switch {
		case bytes.HasPrefix(t, []byte("Total:")):
			err = cur.parseTotal(t[len("Total:"):])
		case bytes.HasPrefix(t, []byte("malloc:")) && cur.Categories != nil && len(cur.Categories) == 0:
			err = cur.parseTotalMalloc(t[len("malloc:"):])
		case bytes.HasPrefix(t, []byte("-")) && cur.Categories != nil:
			if !l.charge(nmtCategoryCost + int64(len(t))) {
				continue
			}
			err = cur.parseCategory(t[1:])
		case bytes.HasPrefix(t, []byte("(")) && len(cur.Categories) > 0:
			err = cur.parseDetail(&cur.Categories[len(cur.Categories)-1], t)
		case bytes.HasPrefix(t, []byte("Details:")), bytes.HasPrefix(t, []byte("Virtual memory map:")):
			done = true
		}
		if err != nil {
			return nil, fmt.Errorf("%w: native memory report line %d: %v", analyze.ErrMalformed, l.num, err)
		}
	}
	if err := l.readErr(); err != nil {
		return nil, err
	}
	if err := finish(); err != nil {
		return nil, err
	}
	switch {
	case len(out) > 0:
		if w := l.cutWarning(); w != "" {
			out[len(out)-1].Warnings = append(out[len(out)-1].Warnings, w)
		}
		return out, nil
	case l.num == 0:
		return nil, analyze.ErrEmpty
	}
	return nil, fmt.Errorf("%w: no native memory report (a \"Native Memory Tracking:\" line) in %d lines", analyze.ErrUnsupportedKind, l.num)
}

// ParseNMT reads the last native memory tracking report in r; see ParseNMTs.
func ParseNMT(r io.Reader) (*NMT, error) {
	all, err := ParseNMTs(r)
	if err != nil {
		return nil, err
	}
	return all[len(all)-1], nil
}

// parseTotal parses " reserved=5942859KB +2339KB, committed=4104347KB +1519KB".
func (n *NMT) parseTotal(s []byte) error {
	if n.Categories != nil {
		return fmt.Errorf("a second Total line")
	}
	n.Categories = []NMTCategory{}
	if i := bytes.IndexByte(s, '='); i >= 0 {
		if end := bytes.IndexByte(s[i:], ','); end > 0 {
			v := bytes.Fields(s[i+1 : i+end])
			if len(v) > 0 {
				n.Scale = string(bytes.TrimLeft(v[0], "0123456789"))
			}
		}
	}
	if _, ok := nmtScales[n.Scale]; !ok {
		return fmt.Errorf("unknown unit %q", errSnippet([]byte(n.Scale)))
	}
	found := 0
	err := n.eachAmount(s, func(key string, v, d int64, hasDelta bool) {
		switch key {
		case "reserved":
			n.TotalReserved, n.TotalReservedDelta = v, d
			found++
		case "committed":
			n.TotalCommitted, n.TotalCommittedDelta = v, d
			found++
		}
		n.Diff = n.Diff || hasDelta
	})
	if err == nil && found != 2 {
		err = fmt.Errorf("the Total line has no reserved= and committed=")
	}
	return err
}

// parseTotalMalloc parses the JDK 17+ " 61143309 #215943, peak=…" after "malloc:".
func (n *NMT) parseTotalMalloc(s []byte) error {
	f := bytes.Fields(bytes.ReplaceAll(s, []byte(","), []byte(" ")))
	if len(f) == 0 {
		return nil
	}
	v, err := n.amount(f[0])
	if err != nil {
		return err
	}
	n.Malloc = v
	if len(f) > 1 && (f[1][0] == '+' || f[1][0] == '-') {
		if n.MallocDelta, err = n.amount(f[1]); err != nil {
			return err
		}
		n.Diff = true
	}
	return nil
}

// parseCategory parses "                 Java Heap (reserved=…, committed=…)".
func (n *NMT) parseCategory(s []byte) error {
	open := bytes.IndexByte(s, '(')
	if open < 0 {
		return nil
	}
	c := NMTCategory{Name: jvmText(bytes.TrimSpace(s[:open]))}
	content := s[open+1:]
	if end := bytes.LastIndexByte(content, ')'); end >= 0 {
		content = content[:end]
	}
	err := n.eachAmount(content, func(key string, v, d int64, hasDelta bool) {
		switch key {
		case "reserved":
			c.Reserved, c.ReservedDelta = v, d
		case "committed":
			c.Committed, c.CommittedDelta = v, d
		}
		n.Diff = n.Diff || hasDelta
	})
	n.Categories = append(n.Categories, c)
	return err
}

// parseDetail parses one "(…)" line under a category: malloc, mmap, arena, and the
// thread or class count. Other details (metaspace, peaks, tracking overhead) are
// skipped.
func (n *NMT) parseDetail(c *NMTCategory, s []byte) error {
	end := bytes.IndexByte(s, ')')
	if end < 0 {
		end = len(s)
	}
	s = bytes.TrimSpace(s[1:end])
	switch {
	case bytes.HasPrefix(s, []byte("malloc=")):
		v, d, _, _, err := n.amountAndCount(s[len("malloc="):])
		c.Malloc, c.MallocDelta = v, d
		return err
	case bytes.HasPrefix(s, []byte("arena=")):
		v, d, _, _, err := n.amountAndCount(s[len("arena="):])
		c.Arena, c.ArenaDelta = v, d
		return err
	case bytes.HasPrefix(s, []byte("mmap:")):
		return n.eachAmount(s[len("mmap:"):], func(key string, v, d int64, _ bool) {
			switch key {
			case "reserved":
				c.MmapReserved = v
			case "committed":
				c.MmapCommitted, c.MmapCommittedDelta = v, d
			}
		})
	case bytes.HasPrefix(s, []byte("thread #")), bytes.HasPrefix(s, []byte("threads #")), bytes.HasPrefix(s, []byte("classes #")):
		f := bytes.Fields(s[bytes.IndexByte(s, '#')+1:])
		if len(f) == 0 {
			return nil
		}
		v, err := parseCount(f[0])
		if err != nil {
			return err
		}
		c.Count = v
		if len(f) > 1 {
			if c.CountDelta, err = signedCountValue(f[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachAmount calls fn for each "key=AMOUNT [DELTA]" of a comma separated list such as
// "reserved=1109328KB +2056KB, committed=66640KB +264KB, readonly=0".
func (n *NMT) eachAmount(s []byte, fn func(key string, value, delta int64, hasDelta bool)) error {
	for part := range bytes.SplitSeq(s, []byte(",")) {
		key, rest, ok := bytes.Cut(bytes.TrimSpace(part), []byte("="))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := n.amount(f[0])
		if err != nil {
			return err
		}
		var d int64
		hasDelta := len(f) > 1 && (f[1][0] == '+' || f[1][0] == '-')
		if hasDelta {
			if d, err = n.amount(f[1]); err != nil {
				return err
			}
		}
		fn(string(bytes.TrimSpace(key)), v, d, hasDelta)
	}
	return nil
}

// amountAndCount parses "1360KB +8KB #15153 +331" (amount, delta, count, count delta),
// skipping a "type=…" some JDKs print after the amount.
func (n *NMT) amountAndCount(s []byte) (v, d, count, countDelta int64, err error) {
	f := slices.DeleteFunc(bytes.Fields(s), func(b []byte) bool { return bytes.IndexByte(b, '=') >= 0 })
	if len(f) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("no amount")
	}
	if v, err = n.amount(f[0]); err != nil {
		return
	}
	f = f[1:]
	if len(f) > 0 && (f[0][0] == '+' || f[0][0] == '-') {
		if d, err = n.amount(f[0]); err != nil {
			return
		}
		n.Diff = true
		f = f[1:]
	}
	if len(f) > 0 && f[0][0] == '#' {
		if count, err = parseCount(f[0][1:]); err != nil {
			return
		}
		if len(f) > 1 {
			countDelta, err = signedCountValue(f[1])
		}
	}
	return
}

// nmtScales are the units NMT prints (NMTUtil::scale_name: K is 1024).
var nmtScales = map[string]int64{"": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}

// amount parses "4194304KB", "18669619469" or a delta "+2339KB" / "-12KB" in bytes.
func (n *NMT) amount(b []byte) (int64, error) {
	sign := int64(1)
	switch {
	case len(b) > 0 && b[0] == '+':
		b = b[1:]
	case len(b) > 0 && b[0] == '-':
		sign, b = -1, b[1:]
	}
	digits := bytes.TrimRight(b, "KMGB")
	scale, ok := nmtScales[string(b[len(digits):])]
	if !ok || len(digits) == 0 {
		return 0, fmt.Errorf("amount %q is not a number of bytes", errSnippet(b))
	}
	v, err := parseCount(digits)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt64/scale {
		return 0, fmt.Errorf("amount %q out of range", errSnippet(b))
	}
	return sign * v * scale, nil
}

// signedCountValue parses a count delta such as "+331" or "-2".
func signedCountValue(b []byte) (int64, error) {
	sign := int64(1)
	switch {
	case len(b) > 0 && b[0] == '+':
		b = b[1:]
	case len(b) > 0 && b[0] == '-':
		sign, b = -1, b[1:]
	default:
		return 0, nil
	}
	v, err := parseCount(b)
	return sign * v, err
}

// check warns when the categories do not add up to the Total line (beyond the
// rounding of a scaled report, in which NMT also omits categories under one unit).
func (n *NMT) check() {
	var reserved, committed int64
	for _, c := range n.Categories {
		reserved += c.Reserved
		committed += c.Committed
	}
	tolerance := int64(0)
	if n.Scale != "" {
		tolerance = 40 * nmtScales[n.Scale]
	}
	if d := n.TotalCommitted - committed; d > tolerance || d < -tolerance {
		n.Warnings = append(n.Warnings, fmt.Sprintf("the categories add up to %s committed but the Total line says %s", analyze.FormatBytes(committed), analyze.FormatBytes(n.TotalCommitted)))
	}
	if len(n.Categories) == 0 {
		n.Warnings = append(n.Warnings, "the report has a Total line but no categories")
	}
	if _, ok := n.Category(HeapCategory); !ok && len(n.Categories) > 0 {
		n.Warnings = append(n.Warnings, "the report has no Java Heap category")
	}
}

// nmtCost and nmtCategoryCost are what a report and a category cost
// beyond their text, with room for the slices' growth.
const (
	nmtCost         = 2 * int64(unsafe.Sizeof(NMT{}))
	nmtCategoryCost = 2 * int64(unsafe.Sizeof(NMTCategory{}))
)
