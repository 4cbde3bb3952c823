package goroutines

import (
	"strings"
	"testing"
)

// creatorDump has three goroutines of one stack started by one `go` statement from
// two goroutines (1 twice, 7 once), and a leaked one marked by the runtime.
const creatorDump = `goroutine 10 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 1
	/src/main.go:20 +0x1b

goroutine 11 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 7
	/src/main.go:20 +0x1b

goroutine 12 [chan receive]:
main.worker()
	/src/main.go:10 +0x19
created by main.start in goroutine 1
	/src/main.go:20 +0x1b

goroutine 13 [chan receive (leaked)]:
main.stranded()
	/src/main.go:30 +0x19
created by main.start in goroutine 1
	/src/main.go:21 +0x1b
`

// TestGroupsByCreator checks that Groups keeps goroutines of one stack from two
// creators together and GroupsByCreator splits them, as panicparse does.
func TestGroupsByCreator(t *testing.T) {
	d, err := Parse(strings.NewReader(creatorDump), 0)
	if err != nil {
		t.Fatal(err)
	}
	counts := func(groups []Group) map[string][]int {
		m := map[string][]int{}
		for _, g := range groups {
			m[g.Stack.Frames[0].Func] = append(m[g.Stack.Frames[0].Func], g.Count)
		}
		return m
	}
	if c := counts(Groups(d))["main.worker"]; len(c) != 1 || c[0] != 3 {
		t.Errorf("Groups: main.worker groups %v, want [3]", c)
	}
	split := GroupsByCreator(d)
	if c := counts(split)["main.worker"]; len(c) != 2 || c[0] != 2 || c[1] != 1 {
		t.Errorf("GroupsByCreator: main.worker groups %v, want [2 1]", c)
	}
	for _, g := range split {
		if len(g.CreatorIDs) != 1 {
			t.Errorf("GroupsByCreator: a group of %d has creators %v", g.Count, g.CreatorIDs)
		}
	}
	r := NewReportByCreator(d)
	if r.SplitBy != SplitCreator || len(r.Groups) != 3 || NewReport(d, nil).SplitBy != "" {
		t.Errorf("NewReportByCreator: split_by %q, %d groups", r.SplitBy, len(r.Groups))
	}
	// The runtime marked one goroutine leaked: the report counts it and gives no hint.
	if r.Leaked != 1 || r.ProvenLeaked || r.LeakProofHint != "" {
		t.Errorf("leaked %d, proven %v, hint %q; want 1, false, none", r.Leaked, r.ProvenLeaked, r.LeakProofHint)
	}
}

// TestGoroutineLeakProfileText checks the debug=1 text of the goroutineleak profile:
// read as a debug=1 dump flagged ProvenLeaked, every goroutine leaked.
func TestGoroutineLeakProfileText(t *testing.T) {
	const text = "goroutineleak profile: total 5\n5 @ 0x47e08e 0x4158ee 0x415432 0x4da199 0x484561\n#\t0x4da198\tmain.leak.func1+0x18\t/tmp/gl/main.go:15\n\n"
	d, err := Parse(strings.NewReader(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReport(d, nil)
	if !r.ProvenLeaked || r.Leaked != 5 || r.Total != 5 || r.Format != FormatDebug1 || len(r.Groups) != 1 || r.LeakProofHint != "" {
		t.Errorf("report: proven %v leaked %d total %d format %q groups %d hint %q", r.ProvenLeaked, r.Leaked, r.Total, r.Format, len(r.Groups), r.LeakProofHint)
	}
	d, err = Parse(strings.NewReader(strings.Replace(text, "goroutineleak", "goroutine", 1)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := NewReport(d, nil); r.ProvenLeaked || r.Leaked != 0 || r.LeakProofHint != LeakProofHint {
		t.Errorf("goroutine profile: proven %v leaked %d hint %q", r.ProvenLeaked, r.Leaked, r.LeakProofHint)
	}
}
