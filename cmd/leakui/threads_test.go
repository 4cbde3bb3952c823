package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// threadsOut is the part of `leakui threads -json` the tests read.
type threadsOut struct {
	Total  int `json:"total"`
	Dumps  int `json:"dumps"`
	Dump   int `json:"dump"`
	Groups []struct {
		Count int      `json:"count"`
		State string   `json:"state"`
		Stack []string `json:"stack"`
	} `json:"groups"`
	Deadlocks []json.RawMessage `json:"deadlocks"`
	Diff      *struct {
		BaseTotal   int               `json:"base_total"`
		TargetTotal int               `json:"target_total"`
		New         []json.RawMessage `json:"new"`
		Grown       []json.RawMessage `json:"grown"`
	} `json:"diff"`
}

func runThreadsJSON(t *testing.T, args ...string) threadsOut {
	t.Helper()
	code, stdout, stderr := jvmRunCLI(t, "", append([]string{"threads", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out threadsOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return out
}

// TestThreadsJSONMatchesGrep checks `leakui threads -json -n 0` against grep's count
// of thread headers, for every group, on a JDK 8 and a JDK 25 dump (with a deadlock).
func TestThreadsJSONMatchesGrep(t *testing.T) {
	for _, name := range []string{"sjk-jstack-jdk8-hazelcast-160threads.txt", "jthreaddump-jstack-deadlock.txt"} {
		path := fixtures.Path(t, "jvm", name)
		out := runThreadsJSON(t, "-n", "0", path)
		want, _ := strconv.Atoi(greptest.Output(t, "-a", "-c", `^".*tid=`, path)[0])
		sum := 0
		for i, g := range out.Groups {
			sum += g.Count
			if g.State == "" || g.Stack == nil {
				t.Errorf("%s: group %d has no state or a null stack: %+v", name, i, g)
			}
		}
		if out.Total != want || sum != want || out.Dumps != 1 || out.Dump != 1 {
			t.Errorf("%s: total %d, groups hold %d, dumps %d; grep counts %d threads", name, out.Total, sum, out.Dumps, want)
		}
		deadlocks, _ := strconv.Atoi(greptest.Output(t, "-a", "-c", "^Found one Java-level deadlock", path)[0])
		if len(out.Deadlocks) != deadlocks {
			t.Errorf("%s: %d deadlocks, grep counts %d", name, len(out.Deadlocks), deadlocks)
		}
	}
}

// TestThreadsDiff compares two different real dumps (new groups) and the two dumps of
// the HP-UX file (the same file as DUMP and BASE).
func TestThreadsDiff(t *testing.T) {
	base := fixtures.Path(t, "jvm", "tda-jstack-jdk8-openjdk.log")
	target := fixtures.Path(t, "jvm", "sjk-jstack-jdk8-hazelcast-160threads.txt")
	out := runThreadsJSON(t, target, base)
	if out.Diff == nil || out.Diff.BaseTotal != 21 || out.Diff.TargetTotal != 160 || len(out.Diff.New) == 0 {
		t.Errorf("diff %+v, want 21 → 160 with new groups", out.Diff)
	}
	hpux := fixtures.Path(t, "jvm", "tda-threaddump-hpux-jdk15-jeus-large.log")
	out = runThreadsJSON(t, "-snapshot", "2", "-base-snapshot", "1", hpux, hpux)
	if out.Dumps != 2 || out.Dump != 2 || out.Total != 574 || out.Diff.BaseTotal != 574 {
		t.Errorf("HP-UX: dump %d of %d, %d threads, base %d; want dump 2 of 2 with 574, base 574", out.Dump, out.Dumps, out.Total, out.Diff.BaseTotal)
	}
	code, stdout, _ := jvmRunCLI(t, "", "threads", "-n", "2", target, base)
	if code != 0 || !strings.Contains(stdout, "21 → 160 threads (+139)") || !strings.Contains(stdout, "New groups:") {
		t.Errorf("text diff (exit %d):\n%s", code, stdout)
	}
}

// TestThreadsText checks the text view leads with the JVM's deadlock.
func TestThreadsText(t *testing.T) {
	path := fixtures.Path(t, "jvm", "jthreaddump-jstack-deadlock.txt")
	code, stdout, stderr := jvmRunCLI(t, "", "threads", "-n", "3", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dl := strings.Index(stdout, "DEADLOCK 1 reported by the JVM")
	group := strings.Index(stdout, "DEADLOCKED 1 threads")
	if dl < 0 || group < dl || !strings.Contains(stdout, `"DeadlockThread-A" waiting to lock monitor`) {
		t.Errorf("the deadlock must come first:\n%s", stdout)
	}
	if code, _, stderr := jvmRunCLI(t, "", "threads", fixtures.Path(t, "jvm", "nmt-summary-jdk8-1529threads-KB.txt")); code != 1 || !strings.Contains(stderr, "try leakui nmt") {
		t.Errorf("threads of an NMT report: exit %d, %q", code, stderr)
	}
}

// TestThreadsUTF16 runs `leakui threads` on the UTF-16LE and UTF-16BE copies of a
// jstack dump: the total is what `iconv -f UTF-16 -t UTF-8 | grep -c '^"'` counts,
// the groups are the UTF-8 original's, and standard error says the file was UTF-16.
func TestThreadsUTF16(t *testing.T) {
	orig := runThreadsJSON(t, "-n", "0", fixtures.Path(t, "jvm", "tda-jstack-jdk8-openjdk.log"))
	for _, tc := range []struct{ name, enc string }{
		{"tda-jstack-jdk8-openjdk-utf16le.log", "UTF-16LE"},
		{"tda-jstack-jdk8-openjdk-utf16be.log", "UTF-16BE"},
	} {
		path := fixtures.Path(t, "jvm", tc.name)
		want := greptest.CountWith(t, "-a", "--", `^"`, greptest.UTF8Copy(t, "UTF-16", path))
		code, stdout, stderr := jvmRunCLI(t, "", "threads", "-json", "-n", "0", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		var out threadsOut
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		if int64(out.Total) != want || want == 0 || len(out.Groups) != len(orig.Groups) {
			t.Errorf("%s: %d threads in %d groups; iconv + grep count %d, the UTF-8 file has %d groups", tc.name, out.Total, len(out.Groups), want, len(orig.Groups))
		}
		if !strings.Contains(stderr, tc.enc) {
			t.Errorf("%s: standard error %q does not say %s", tc.name, stderr, tc.enc)
		}
		code, text, _ := jvmRunCLI(t, "", "threads", path)
		if code != 0 || !strings.Contains(text, strconv.Itoa(int(want))) {
			t.Errorf("%s: text output (exit %d) does not give %d threads:\n%s", tc.name, code, want, text)
		}
	}
}
