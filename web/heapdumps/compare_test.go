package heapdumps

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/internal/javatest"
)

// snapshotOfReport is what a comparison kept of one dump when it was built
// inside the upload's request, from the dump's report.
func snapshotOfReport(rep *hprof.Report) heapDumpSnapshot {
	d := heapDumpSnapshot{Time: rep.Time, Objects: rep.Objects, Shallow: rep.Shallow, Reachable: rep.Reachable,
		Classes: rep.Histogram[:min(len(rep.Histogram), CompareClasses)], ClassCount: rep.HistogramCount}
	if len(rep.Suspects) > 0 {
		d.Headline = rep.Suspects[0].Sentence
	}
	return d
}

// TestComparisonFromIndexes analyzes two real heap dumps of LeakShape (2
// then 5 consumers of 64 KiB) and checks that what a comparison keeps of each
// dump, read from the dump's index as the background comparison reads it,
// equals what the comparison built inside the upload kept from the dump's
// report (totals, time, every class's instances, shallow and retained size),
// and that the comparisons' summaries are equal: same suspect, same deltas.
func TestComparisonFromIndexes(t *testing.T) {
	var fromReports, fromIndexes []heapDumpSnapshot
	for _, n := range []int{2, 5} {
		jh := javatest.Run(t, "../../analyze/hprof/testdata/LeakShape.java", false, []string{"-XX:+UseSerialGC", "-Xmx128m"},
			strconv.Itoa(n), strconv.Itoa(64<<10), "100", "10")
		h, err := hprof.Open(jh.Dump, hprof.OpenOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := h.NewReport(compareOptions, nil)
		if err != nil {
			t.Fatal(err)
		}
		var idx bytes.Buffer
		if _, err := h.WriteIndex(&idx); err != nil {
			t.Fatal(err)
		}
		h.Close()
		x, err := hprof.OpenIndex(bytes.NewReader(idx.Bytes()), int64(idx.Len()))
		if err != nil {
			t.Fatal(err)
		}
		old := snapshotOfReport(rep)
		got, err := snapshotOfIndex(x, old.Headline)
		if err != nil {
			t.Fatal(err)
		}
		if len(old.Classes) < 100 || old.Objects < 1000 || old.Reachable <= int64(n)*(64<<10) {
			t.Fatalf("dump of %d consumers: %d classes, %d objects, %d reachable", n, len(old.Classes), old.Objects, old.Reachable)
		}
		if !reflect.DeepEqual(got, old) {
			t.Errorf("dump of %d consumers: from the index %+v\nfrom the report %+v", n, brief(got), brief(old))
			for i := range min(len(got.Classes), len(old.Classes)) {
				if got.Classes[i] != old.Classes[i] {
					t.Errorf("class %d: index %+v, report %+v", i, got.Classes[i], old.Classes[i])
					break
				}
			}
		}
		fromReports, fromIndexes = append(fromReports, old), append(fromIndexes, got)
	}
	names := []string{"2.hprof", "5.hprof"}
	a, err := compareSnapshots(fromReports, names)
	if err != nil {
		t.Fatal(err)
	}
	b, err := compareSnapshots(fromIndexes, names)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || a.ReachableDelta < 3*(64<<10) || a.SuspectInstances != 3 {
		t.Errorf("the comparison from the indexes: suspect %s %+d, reachable %+d; in the request: %s %+d, %+d",
			b.Suspect, b.SuspectInstances, b.ReachableDelta, a.Suspect, a.SuspectInstances, a.ReachableDelta)
	}
}

// brief is a snapshot without its classes, to print.
func brief(d heapDumpSnapshot) heapDumpSnapshot {
	d.Classes = d.Classes[:0]
	return d
}
