package goroutines

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goroutineBenchSizes are the dump sizes the benchmarks run at: time per goroutine
// stays flat across them when parsing and grouping are linear.
var goroutineBenchSizes = []int{12500, 25000, 50000}

var (
	goroutineBenchHeader   = regexp.MustCompile(`(?m)^goroutine \d+ `)
	goroutineBenchLocation = regexp.MustCompile(`(?m)^(\t[^\n]*:)(\d+)( \+0x)`)
)

// goroutineBenchDump builds a debug=2 dump of n goroutines from the goroutines of a real one
// (goprofnotes snap2, 10 goroutines), renumbered, with the line of each copy's first
// frame shifted by up to 127 so that there are about 1,300 distinct stacks, as in
// the side-by-side benchmark's generated dump.
func goroutineBenchDump(b *testing.B, n int) []byte {
	b.Helper()
	raw := strings.TrimSpace(string(readGoroutineFixture(b, "goroutines", "goprofnotes-snap2-debug2.txt")))
	blocks := strings.Split(raw, "\n\n")
	var out strings.Builder
	for i := 0; i < n; i++ {
		block := blocks[i%len(blocks)]
		shift := (i / len(blocks)) % 128
		block = goroutineBenchHeader.ReplaceAllString(block, "goroutine "+strconv.Itoa(i+1)+" ")
		done := false
		block = goroutineBenchLocation.ReplaceAllStringFunc(block, func(loc string) string {
			if done {
				return loc
			}
			done = true
			m := goroutineBenchLocation.FindStringSubmatch(loc)
			line, _ := strconv.Atoi(m[2])
			return m[1] + strconv.Itoa(line+shift) + m[3]
		})
		out.WriteString(block)
		out.WriteString("\n\n")
	}
	return []byte(out.String())
}

// BenchmarkParseGoroutineDump parses and groups debug=2 dumps of 12,500 to 50,000
// goroutines (11 to 44 MB); ns/goroutine should not grow with the size.
func BenchmarkParseGoroutineDump(b *testing.B) {
	for _, n := range goroutineBenchSizes {
		data := goroutineBenchDump(b, n)
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			groups := 0
			for b.Loop() {
				d, err := Parse(bytes.NewReader(data), 0)
				if err != nil {
					b.Fatal(err)
				}
				groups = len(Groups(d))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/goroutine")
			b.ReportMetric(float64(groups), "groups")
		})
	}
}

// BenchmarkGroupGoroutines groups already parsed dumps, the part that must be
// linear in the number of goroutines (panicparse's default mode is quadratic).
func BenchmarkGroupGoroutines(b *testing.B) {
	for _, n := range goroutineBenchSizes {
		d, err := Parse(bytes.NewReader(goroutineBenchDump(b, n)), 0)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Groups(d)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/goroutine")
		})
	}
}

// BenchmarkCompareGoroutines compares two dumps of 50,000 goroutines that differ by
// a tenth.
func BenchmarkCompareGoroutines(b *testing.B) {
	base, err := Parse(bytes.NewReader(goroutineBenchDump(b, 45000)), 0)
	if err != nil {
		b.Fatal(err)
	}
	target, err := Parse(bytes.NewReader(goroutineBenchDump(b, 50000)), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		compareDumps(base, target)
	}
}
