package jvm

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// openFixture opens a fixture, dir/name under testdata.
func openFixture(t *testing.T, dir, name string) *os.File {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func histogramFixture(t *testing.T, dir, name string) *Histogram {
	t.Helper()
	h, err := ParseHistogram(openFixture(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func threadsFixture(t *testing.T, dir, name string) *ThreadGroups {
	t.Helper()
	f, err := ParseThreadDumps(openFixture(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return GroupThreads(f.Dumps[len(f.Dumps)-1])
}

func nmtFixture(t *testing.T, dir, name string) *NMT {
	t.Helper()
	n, err := ParseNMT(openFixture(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkWarnings requires exactly the warnings that start with want, in order.
func checkWarnings(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("%s: warnings %q, want %q", what, got, want)
	}
}

// TestHistogramsOfTwoJDKs compares the class histograms of one program (Lambdas,
// ten entries and two lambdas in static fields) run on OpenJDK 17.0.15 and on
// Temurin 25.0.3, as jcmd printed them: the diff warns first that the JVMs and
// the processes differ, and the two lambdas, named anew by JDK 25 (one instance
// each, "new"), are growers but no leak suspects: one instance is under the floor.
func TestHistogramsOfTwoJDKs(t *testing.T) {
	base := histogramFixture(t, "jvm", "lambdas-jdk17-class-histogram.txt")
	target := histogramFixture(t, "jvm", "lambdas-jdk25-class-histogram.txt")
	if base.Origin != (Origin{PID: 21234, JVMVersion: "17.0.15"}) || target.Origin != (Origin{PID: 21518, JVMVersion: "25.0.3"}) {
		t.Fatalf("origins %+v and %+v; the files say 21234: java.base@17.0.15 and 21518: java.base@25.0.3", base.Origin, target.Origin)
	}
	d := DiffHistograms(base, target)
	checkWarnings(t, "JDK 17 → 25", d.Warnings,
		"The two files come from different JVM versions (17.0.15 in the base, 25.0.3 in the target)",
		"The two files come from different processes (PID 21234 in the base, 21518 in the target)")
	growers := d.Growers(0)
	var lambdas []string
	for _, c := range growers {
		if strings.HasPrefix(c.Name, "Lambdas$$Lambda/0x") && c.Instances == 1 && c.New() {
			lambdas = append(lambdas, c.Name)
		}
	}
	if len(lambdas) != 2 {
		t.Fatalf("growers %v: want JDK 25's two lambda classes, new with one instance each", growers)
	}
	if s := d.Suspects(0); len(s) != 0 {
		t.Errorf("suspects %v: one instance more is no leak", s)
	}
	if h := d.Headline(); strings.Contains(h, "Application classes with more instances") {
		t.Errorf("headline %q names the lambdas as suspects", h)
	}
	// The same JDK and process compared with itself: no warning.
	if w := DiffHistograms(base, base).Warnings; len(w) != 0 {
		t.Errorf("one file against itself: %q", w)
	}
}

// TestHistogramSuspectsNeedTheFloor: LeakShape's consumers (2, 4 and 6 of them in
// three runs, as jcmd printed them) are suspects where they grew by four (2 → 6)
// and not where they grew by two (2 → 4), under the floor of three instances; the
// runs are three processes, which the diffs say.
func TestHistogramSuspectsNeedTheFloor(t *testing.T) {
	two := histogramFixture(t, "leakshape", "leakshape-2-class-histogram.txt")
	four := histogramFixture(t, "leakshape", "leakshape-4-class-histogram.txt")
	six := histogramFixture(t, "leakshape", "leakshape-6-class-histogram.txt")
	names := func(cs []ClassChange) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		slices.Sort(out)
		return out
	}
	want := []string{"LeakShape$Consumer", "LeakShape$ConsumerThread"}
	d := DiffHistograms(two, six)
	if got := names(d.Suspects(0)); !slices.Equal(got, want) {
		t.Errorf("2 → 6: suspects %v, want %v", got, want)
	}
	checkWarnings(t, "2 → 6", d.Warnings, "The two files come from different processes (PID 31271 in the base, 32321 in the target)")
	d = DiffHistograms(two, four)
	if got := d.Suspects(0); len(got) != 0 {
		t.Errorf("2 → 4: suspects %v; +2 instances is under the floor", names(got))
	}
	if got := names(d.Growers(0)); !slices.Equal(got, want) {
		t.Errorf("2 → 4: growers %v, want %v", got, want)
	}
	// The share: a class that grew by 3 where the application classes grew by
	// 1,000 together is under 0.5% of it.
	if SuspectFloor(ClassChange{Instances: 3}, 1000) || !SuspectFloor(ClassChange{Instances: 5}, 1000) || !SuspectFloor(ClassChange{Instances: 1, Bytes: 1 << 20}, 100) {
		t.Error("the share or the size floor is not applied")
	}
}

// TestThreadDumpOrigins: thread dumps of two JDKs, of two programs and of two
// processes say so when compared; the version is the header's, the program the
// main thread's main class.
func TestThreadDumpOrigins(t *testing.T) {
	l17 := threadsFixture(t, "jvm", "lambdas-jdk17-thread-dump.txt")
	l25 := threadsFixture(t, "jvm", "lambdas-jdk25-thread-dump.txt")
	shape := threadsFixture(t, "leakshape", "leakshape-2-thread-dump.txt")
	if l25.Origin != (Origin{PID: 21518, JVMVersion: "25.0.3+9-LTS", Program: "Lambdas"}) || shape.Program != "LeakShape" {
		t.Fatalf("origins %+v, %+v", l25.Origin, shape.Origin)
	}
	checkWarnings(t, "Lambdas on 17 → 25", DiffThreads(l17, l25).Warnings,
		"The two files come from different JVM versions (17.0.15+6-Debian-1deb12u1 in the base, 25.0.3+9-LTS in the target)",
		"The two files come from different processes (PID 21234 in the base, 21518 in the target)")
	checkWarnings(t, "LeakShape → Lambdas", DiffThreads(shape, l17).Warnings,
		"The two files come from different programs (LeakShape in the base, Lambdas in the target)",
		"The two files come from different processes (PID 31271 in the base, 21234 in the target)")
	// jstack output has no process id line: only the versions differ.
	checkWarnings(t, "JDK 21 → 25", DiffThreads(threadsFixture(t, "jvm", "tda-jstack-jdk21-macos.log"), threadsFixture(t, "jvm", "jthreaddump-jstack-deadlock.txt")).Warnings,
		"The two files come from different JVM versions (21.0.9+10-LTS in the base, 25+36-LTS in the target)")
	checkWarnings(t, "one dump", DiffThreads(shape, shape).Warnings)
}

// TestNMTOrigins: native memory summaries of two processes say so when compared.
func TestNMTOrigins(t *testing.T) {
	a := nmtFixture(t, "leakshape", "leakshape-2-nmt-summary.txt")
	b := nmtFixture(t, "leakshape", "leakshape-4-nmt-summary.txt")
	checkWarnings(t, "2 → 4", DiffNMT(a, b).Warnings, "The two files come from different processes (PID 31271 in the base, 31653 in the target)")
	checkWarnings(t, "one report", DiffNMT(a, a).Warnings)
}

// TestSeriesWarnings: LeakShape's three histograms, one run each, make a series
// only with a warning that names the first process that differs.
func TestSeriesWarnings(t *testing.T) {
	var origins []Origin
	for _, n := range []string{"2", "4", "6"} {
		origins = append(origins, histogramFixture(t, "leakshape", "leakshape-"+n+"-class-histogram.txt").Origin)
	}
	checkWarnings(t, "2, 4, 6", SeriesWarnings(origins), "The snapshots come from different processes (PID 31271 in snapshot 1, 31653 in snapshot 2)")
	checkWarnings(t, "one process", SeriesWarnings([]Origin{origins[0], origins[0], origins[0]}))
}
