package jvm

import (
	"bytes"
	"fmt"
	"io"
	"time"
	"unsafe"

	"github.com/leakui/leakui/analyze"
)

// Class is one row of a JVM class histogram: how many instances of a class the
// heap holds and how many bytes they take (shallow size, as the JVM counts it).
type Class struct {
	// Rank is the row number the JVM printed (1 for the largest), 0 if unknown.
	Rank int `json:"rank,omitempty"`
	// Name is the class name as printed: "java.lang.String", "[B" for byte[],
	// "<symbolKlass>" for an old permanent-generation object.
	Name string `json:"name"`
	// Module is the module JDK 9+ prints after the name ("java.base@17.0.2"); empty
	// for classes in the unnamed module and for older JDKs.
	Module    string `json:"module,omitempty"`
	Instances int64  `json:"instances"`
	Bytes     int64  `json:"bytes"`
}

// Histogram is one class histogram as printed by `jmap -histo[:live]`,
// `jcmd <pid> GC.class_histogram`, `jmap -F -histo` or a JVM run with
// -XX:+PrintClassHistogram (the old JDK 5/6 layout inside a thread dump log).
type Histogram struct {
	// Format names the layout, such as "JDK 9+ (module column)".
	Format string `json:"format"`
	// Time is when the histogram was taken, from a time stamp line before it (as
	// jstack and `date` print); zero when the file does not say.
	Time time.Time `json:"time,omitzero"`
	// Line is the line of the histogram's header in its file, from 1.
	Line int `json:"line"`
	// Origin is the JVM the histogram came from: jcmd's process id and the JDK's
	// version from the module column, when the file has them.
	Origin
	// TotalInstances and TotalBytes are the file's own Total line; without one they
	// are the sums of the rows (and Warnings says so).
	TotalInstances int64 `json:"total_instances"`
	TotalBytes     int64 `json:"total_bytes"`
	// HasTotal tells whether the file had a Total line.
	HasTotal bool `json:"has_total"`
	// RowInstances and RowBytes are the sums over Classes. They equal the totals in
	// any complete histogram.
	RowInstances int64 `json:"row_instances"`
	RowBytes     int64 `json:"row_bytes"`
	// Classes are the rows in the file's order (by bytes, largest first).
	Classes []Class `json:"classes"`
	// Warnings describe what looks wrong without stopping the analysis: a missing
	// Total line, rows that do not add up to it, missing rows.
	Warnings []string `json:"warnings,omitempty"`
}

// Histogram layouts, as Histogram.Format names them.
const (
	formatModules = "JDK 9+ (module column)"
	formatClassic = "JDK 8 or earlier"
	formatSA      = "jmap -F (Serviceability Agent)"
)

// ParseHistograms reads every class histogram in r: a file of one histogram,
// jcmd output (with its "<pid>:" line), or a log or thread dump with histograms in
// it. r is text (see Decompress for gzip and zstd). It fails with ErrEmpty on no
// input, ErrUnsupportedKind when there is no histogram header, and ErrMalformed when
// a histogram is broken (a header with no rows, a count that overflows).
func ParseHistograms(r io.Reader) ([]*Histogram, error) {
	return ParseHistogramsWithin(r, nil)
}

// ParseHistogramsWithin is ParseHistograms within a memory budget (nil:
// unbounded): every row is charged at its in-memory size before it is kept, so
// a histogram that would not fit is refused with the budget's error (ErrTooLarge
// or ErrBusy, naming the limit) once what was read of it used the budget up.
// What the histograms hold stays charged; release the budget when done.
func ParseHistogramsWithin(r io.Reader, budget *analyze.Budget) ([]*Histogram, error) {
	l := newLineReader(r, budget)
	defer l.meter.Settle()
	var (
		out     []*Histogram
		stamp   time.Time
		emptyAt int
		pid     int64
	)
	for l.next() {
		line := l.line()
		if t, ok := timestampLine(line); ok {
			stamp = t
			continue
		}
		if p, ok := pidLine(line); ok {
			pid = p
			continue
		}
		format, modules, ok := histogramHeader(line)
		if !ok {
			continue
		}
		h, err := parseHistogramSection(l, format, modules)
		if err != nil {
			return nil, err
		}
		if err := l.readErr(); err != nil {
			return nil, err
		}
		if len(h.Classes) == 0 && !h.HasTotal {
			emptyAt = h.Line
			continue
		}
		h.Time, stamp = stamp, time.Time{}
		h.PID = pid
		out = append(out, h)
	}
	if err := l.readErr(); err != nil {
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
	case emptyAt > 0:
		return nil, fmt.Errorf("%w: the class histogram header at line %d has no rows", analyze.ErrMalformed, emptyAt)
	}
	return nil, fmt.Errorf("%w: no class histogram (a \" num  #instances  #bytes  class name\" header) in %d lines", analyze.ErrUnsupportedKind, l.num)
}

// ParseHistogram reads the last class histogram in r (the most recent, when a
// log holds several); see ParseHistograms.
func ParseHistogram(r io.Reader) (*Histogram, error) {
	hs, err := ParseHistograms(r)
	if err != nil {
		return nil, err
	}
	return hs[len(hs)-1], nil
}

// timestampLine recognizes a line that holds only a time stamp, cheaply
// rejecting the usual dump and histogram lines first.
func timestampLine(line []byte) (time.Time, bool) {
	if len(line) < 10 || len(line) > 40 {
		return time.Time{}, false
	}
	c := line[0]
	if !isDigit(c) && !(c >= 'A' && c <= 'Z') {
		return time.Time{}, false
	}
	return parseTimestamp(line)
}

// histogramHeader recognizes the header line of a class histogram and tells its
// layout and whether rows carry a module column.
func histogramHeader(line []byte) (format string, modules, ok bool) {
	t := bytes.TrimLeft(line, " \t")
	if !bytes.HasPrefix(t, []byte("num")) {
		return "", false, false
	}
	f := bytes.Fields(t)
	if len(f) < 5 || string(f[0]) != "num" || string(f[1]) != "#instances" || string(f[2]) != "#bytes" ||
		!bytes.EqualFold(f[3], []byte("class")) {
		return "", false, false
	}
	switch string(f[4]) {
	case "name":
		if len(f) > 5 && string(f[5]) == "(module)" {
			return formatModules, true, true
		}
		return formatClassic, false, true
	case "description":
		return formatSA, false, true
	}
	return "", false, false
}

// parseHistogramSection reads the rows after a header line up to and including
// the Total line; the first line that is neither is handed back to l.
func parseHistogramSection(l *lineReader, format string, modules bool) (*Histogram, error) {
	h := &Histogram{Format: format, Line: l.num, Classes: []Class{}}
	gaps := 0
	first := true
	for l.next() {
		line := l.line()
		if first {
			first = false
			if t := bytes.TrimSpace(line); len(t) > 0 && len(bytes.Trim(t, "-")) == 0 {
				continue // the dashes under the header
			}
		}
		row, isRow, err := parseHistogramRow(line, modules)
		if err != nil {
			return nil, fmt.Errorf("%w: class histogram line %d: %v", analyze.ErrMalformed, l.num, err)
		}
		if isRow {
			if row.Rank != len(h.Classes)+1 {
				gaps++
			}
			var ok1, ok2 bool
			h.RowInstances, ok1 = addInt64(h.RowInstances, row.Instances)
			h.RowBytes, ok2 = addInt64(h.RowBytes, row.Bytes)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%w: class histogram line %d: the rows add up to more than 2^63", analyze.ErrMalformed, l.num)
			}
			if !l.charge(classCost + int64(len(line))) {
				break
			}
			h.Classes = append(h.Classes, row)
			continue
		}
		if inst, b, ok, err := parseHistogramTotal(line); ok || err != nil {
			if err != nil {
				return nil, fmt.Errorf("%w: class histogram line %d: %v", analyze.ErrMalformed, l.num, err)
			}
			h.TotalInstances, h.TotalBytes, h.HasTotal = inst, b, true
			break
		}
		l.unread()
		break
	}
	if len(h.Classes) == 0 && !h.HasTotal {
		return h, nil
	}
	h.JVMVersion = histogramJVMVersion(h.Classes)
	if !h.HasTotal {
		h.TotalInstances, h.TotalBytes = h.RowInstances, h.RowBytes
		h.Warnings = append(h.Warnings, fmt.Sprintf("no Total line after %d rows: the histogram may be cut short", len(h.Classes)))
	} else if h.TotalInstances != h.RowInstances || h.TotalBytes != h.RowBytes {
		h.Warnings = append(h.Warnings, fmt.Sprintf("the Total line says %s instances and %s bytes but the rows add up to %s instances and %s bytes",
			analyze.FormatCount(h.TotalInstances), analyze.FormatCount(h.TotalBytes), analyze.FormatCount(h.RowInstances), analyze.FormatCount(h.RowBytes)))
	}
	if gaps > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d rows are out of sequence: some rows may have been filtered out", gaps))
	}
	return h, nil
}

// parseHistogramRow parses "   1:   15660   3695576  [C" (with " (java.base@17)"
// after the name when modules is set). isRow is false for any other line; err is set
// for a row whose numbers do not fit.
func parseHistogramRow(line []byte, modules bool) (row Class, isRow bool, err error) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	rank, i, ok := jvmDigits(line, i)
	if !ok || i >= len(line) || line[i] != ':' {
		return row, false, nil
	}
	i++
	inst, i, ok := spacedDigits(line, i)
	if !ok {
		return row, false, nil
	}
	byt, i, ok := spacedDigits(line, i)
	if !ok || i >= len(line) || !isSpace(line[i]) {
		return row, false, nil
	}
	name := bytes.TrimSpace(line[i:])
	if len(name) == 0 {
		return row, false, nil
	}
	if len(rank) > 9 {
		return row, true, fmt.Errorf("row number %q out of range", errSnippet(rank))
	}
	for _, c := range rank {
		row.Rank = row.Rank*10 + int(c-'0')
	}
	if row.Instances, err = parseCount(inst); err != nil {
		return row, true, err
	}
	if row.Bytes, err = parseCount(byt); err != nil {
		return row, true, err
	}
	if modules && name[len(name)-1] == ')' {
		if open := bytes.LastIndex(name, []byte(" (")); open > 0 {
			row.Module = jvmText(name[open+2 : len(name)-1])
			name = name[:open]
		}
	}
	row.Name = jvmText(name)
	return row, true, nil
}

// parseHistogramTotal parses "Total   183155   16330872" and the Serviceability
// Agent's "Total : \t183155\t16330872".
func parseHistogramTotal(line []byte) (instances, bytesTotal int64, ok bool, err error) {
	t := bytes.TrimSpace(line)
	rest, found := bytes.CutPrefix(t, []byte("Total"))
	if !found {
		return 0, 0, false, nil
	}
	rest = bytes.TrimLeft(rest, " \t")
	rest = bytes.TrimPrefix(rest, []byte(":"))
	f := bytes.Fields(rest)
	if len(f) != 2 {
		return 0, 0, false, nil
	}
	for _, n := range f {
		for _, c := range n {
			if !isDigit(c) {
				return 0, 0, false, nil
			}
		}
	}
	if instances, err = parseCount(f[0]); err != nil {
		return 0, 0, false, err
	}
	if bytesTotal, err = parseCount(f[1]); err != nil {
		return 0, 0, false, err
	}
	return instances, bytesTotal, true, nil
}

// jvmDigits returns the run of digits at line[i:] and the index after it.
func jvmDigits(line []byte, i int) ([]byte, int, bool) {
	start := i
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	return line[start:i], i, i > start
}

// spacedDigits skips at least one space or tab, then returns a run of digits.
func spacedDigits(line []byte, i int) ([]byte, int, bool) {
	start := i
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i == start {
		return nil, i, false
	}
	return jvmDigits(line, i)
}

// classCost is what a histogram row costs beyond its text: its Class, with
// room for the slice's growth.
const classCost = 2 * int64(unsafe.Sizeof(Class{}))
