package goroutines

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/testtool"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestCompareGoroutinesProtoSnapshots compares the two goprofnotes goroutine
// profiles, 70 s apart, with `go tool pprof -traces -diff_base` as the anchor: the
// change of every stack (labels and functions) is what pprof's diff adds up to.
func TestCompareGoroutinesProtoSnapshots(t *testing.T) {
	basePath := fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz")
	targetPath := fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap2-debug0.pb.gz")
	want := map[string]int{}
	for _, b := range goroutinePprofTraces(t, "-diff_base", basePath, targetPath) {
		labels := slices.DeleteFunc(b.labels, func(l string) bool { return strings.HasPrefix(l, "pprof::base:") })
		want[goroutineTracesKey(labels, b.funcs)] += b.count
	}
	base, target := parseGoroutineFile(t, basePath), parseGoroutineFile(t, targetPath)
	groups := compareDumps(base, target)
	got := map[string]int{}
	changed := 0
	for _, g := range groups {
		got[groupGoroutineTracesKey(&g)] += g.Change.Delta
		if g.Change.Delta != 0 {
			changed++
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("stack %s: changed by %d, pprof's diff says %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok && n != 0 {
			t.Errorf("stack %s: changed by %d, pprof's diff does not list it", k, n)
		}
	}
	if changed == 0 {
		t.Error("no group changed; pprof's diff shows changes")
	}
	// Changed groups come first: growth, then no change, then shrinking.
	for i := 1; i < len(groups); i++ {
		if goroutineChangeRank(groups[i-1]) > goroutineChangeRank(groups[i]) {
			t.Errorf("group %d (%+v) before group %d (%+v)", i-1, groups[i-1].Change, i, groups[i].Change)
		}
	}
}

func goroutineChangeRank(g Group) int {
	switch {
	case g.Change.Delta > 0:
		return 0
	case g.Change.Delta == 0:
		return 1
	case !g.Change.Gone:
		return 2
	}
	return 3
}

// TestCompareGoroutinesDebug1Snapshots compares the debug=1 twins of the same two
// snapshots. The anchor is the records themselves, read with grep: a record ("N @"
// and its program counters) found in only one file is a group that is new or gone,
// by its count; every other group is unchanged.
func TestCompareGoroutinesDebug1Snapshots(t *testing.T) {
	basePath := fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug1.txt")
	targetPath := fixtures.Path(t, "goroutines", "goprofnotes-snap2-debug1.txt")
	baseRecords := greptest.Output(t, "-E", "^[0-9]+ @", basePath)
	targetRecords := greptest.Output(t, "-E", "^[0-9]+ @", targetPath)
	var wantNew, wantGone []int
	for _, r := range targetRecords {
		if !slices.Contains(baseRecords, r) {
			wantNew = append(wantNew, goroutineRecordCount(r))
		}
	}
	for _, r := range baseRecords {
		if !slices.Contains(targetRecords, r) {
			wantGone = append(wantGone, goroutineRecordCount(r))
		}
	}
	var gotNew, gotGone []int
	for _, g := range compareDumps(parseGoroutineFile(t, basePath), parseGoroutineFile(t, targetPath)) {
		switch {
		case g.Change.New:
			gotNew = append(gotNew, g.Count)
		case g.Change.Gone:
			gotGone = append(gotGone, g.Change.Base)
		case g.Change.Delta != 0:
			t.Errorf("group %v changed by %d; the records say new, gone or unchanged", g.Stack.Funcs(), g.Change.Delta)
		}
	}
	slices.Sort(wantNew)
	slices.Sort(gotNew)
	slices.Sort(wantGone)
	slices.Sort(gotGone)
	if !slices.Equal(gotNew, wantNew) || !slices.Equal(gotGone, wantGone) || len(wantNew) == 0 {
		t.Errorf("new %v gone %v; the records give new %v gone %v", gotNew, gotGone, wantNew, wantGone)
	}
}

func goroutineRecordCount(record string) int {
	n, _ := strconv.Atoi(strings.Fields(record)[0])
	return n
}

// TestCompareGoroutinesWaitDoesNotSplit compares the debug=2 twins: goroutines whose
// traceback (sed, everything after the header) is byte for byte the same in both
// files are unchanged, although most have waited a minute longer in the second.
func TestCompareGoroutinesWaitDoesNotSplit(t *testing.T) {
	basePath := fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug2.txt")
	targetPath := fixtures.Path(t, "goroutines", "goprofnotes-snap2-debug2.txt")
	same := map[int64]bool{}
	for _, h := range greptest.Output(t, "-oE", "^goroutine [0-9]+ ", targetPath) {
		id, _ := strconv.ParseInt(strings.Fields(h)[1], 10, 64)
		a, b := goroutineTracebackBody(t, basePath, id), goroutineTracebackBody(t, targetPath, id)
		same[id] = a != "" && a == b
	}
	waited, checked := 0, 0
	for _, g := range compareDumps(parseGoroutineFile(t, basePath), parseGoroutineFile(t, targetPath)) {
		all := len(g.IDs) > 0
		for _, id := range g.IDs {
			all = all && same[id]
		}
		if !all {
			continue
		}
		checked++
		if g.Change.Delta != 0 || g.Change.Base != g.Count {
			t.Errorf("goroutines %v have the same tracebacks in both dumps, but their group changed: %+v", g.IDs, g.Change)
		}
		if g.WaitMax > 0 {
			waited++
		}
	}
	if checked < 5 || waited < 4 {
		t.Errorf("%d unchanged groups, %d with a wait; the fixtures have 5 stable goroutines that waited", checked, waited)
	}
}

// goroutineTracebackBody returns the lines of goroutine id's traceback after its header, as
// sed prints them.
func goroutineTracebackBody(t *testing.T, path string, id int64) string {
	t.Helper()
	out, err := exec.Command(testtool.Require(t, "sed", "sed"), "-n", "/^goroutine "+strconv.FormatInt(id, 10)+" /,/^$/p", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(out), "\n")
	return body
}
