package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/javatest"
)

// TestHprofCompare runs `leakui hprof BASE TARGET` on two real dumps of the
// SAMZA-2785 shape, 2 then 6 leaked consumers of 1 MiB and 100 then 400
// cached arrays: the classes' instance counts and their changes equal those
// of jcmd's class histograms of the same heaps, the consumers' retained size
// grows by at least their buffers, the text names the growth first, and the
// comparison leaves nothing in its temporary folder.
func TestHprofCompare(t *testing.T) {
	const src = "../../analyze/hprof/testdata/LeakShape.java"
	jvmArgs := []string{"-XX:+UseSerialGC", "-Xmx128m"}
	base := javatest.Run(t, src, true, jvmArgs, "2", "1048576", "100", "10")
	target := javatest.Run(t, src, false, jvmArgs, "6", "1048576", "400", "10")
	tmp := t.TempDir()

	code, stdout, stderr := jvmRunCLI(t, "", "hprof", "-json", "-n", "0", "-tmp", tmp, base.Dump, target.Dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Base, Target struct {
			Objects int64 `json:"objects"`
		}
		ObjectsDelta int64 `json:"objects_delta"`
		Classes      []struct {
			Name           string `json:"name"`
			Instances      int64  `json:"instances"`
			InstancesDelta int64  `json:"instances_delta"`
			ShallowDelta   int64  `json:"shallow_delta"`
			RetainedDelta  int64  `json:"retained_delta"`
		} `json:"classes"`
		Suspects []struct {
			Name string `json:"name"`
		} `json:"suspects"`
		Sentence string `json:"sentence"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if got.ObjectsDelta != got.Target.Objects-got.Base.Objects || got.ObjectsDelta <= 0 {
		t.Errorf("objects %d → %d, delta %d", got.Base.Objects, got.Target.Objects, got.ObjectsDelta)
	}
	histogram := func(h javatest.Heap) map[string]int64 {
		hist, err := jvm.ParseHistogram(bytes.NewReader(h.Histogram))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, c := range hist.Classes {
			m[c.Name] = c.Instances
		}
		return m
	}
	bh, th := histogram(base), histogram(target)
	byName := map[string]int{}
	for i, c := range got.Classes {
		byName[c.Name] = i
	}
	for _, name := range []string{"LeakShape$Consumer", "LeakShape$ConsumerThread", "java.lang.Integer", "java.util.HashMap$Node"} {
		i, ok := byName[name]
		if !ok {
			t.Errorf("no %s in the comparison", name)
			continue
		}
		c := got.Classes[i]
		if c.Instances != th[name] || c.InstancesDelta != th[name]-bh[name] {
			t.Errorf("%s: %d instances (%+d), jcmd's histograms count %d (%+d)", name, c.Instances, c.InstancesDelta, th[name], th[name]-bh[name])
		}
	}
	if c := got.Classes[byName["LeakShape$Consumer"]]; c.InstancesDelta != 4 || c.RetainedDelta < 4<<20 {
		t.Errorf("the consumers: %+v, want 4 more retaining 4 MiB more at least", c)
	}
	if len(got.Suspects) == 0 || got.Sentence == "" {
		t.Errorf("no growth named: %s", stdout)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d files left in -tmp", len(left))
	}

	code, stdout, stderr = jvmRunCLI(t, "", "hprof", "-n", "5", base.Dump, target.Dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Base   " + base.Dump, "Target " + target.Dump, "Classes by growth in retained size", "Classes whose instances grew most", "LeakShape$Consumer"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text has no %q:\n%s", want, stdout)
		}
	}
}

// TestHprofCompareMore runs `leakui hprof A B C` on three real dumps of
// LeakShape, 1, 3 then 5 consumers of 64 KiB: the comparison is the first's
// with the last's (the consumers' instances grow by jcmd's 4), and every
// dump's totals are listed in order, as JSON and as text.
func TestHprofCompareMore(t *testing.T) {
	const src = "../../analyze/hprof/testdata/LeakShape.java"
	jvmArgs := []string{"-XX:+UseSerialGC", "-Xmx128m"}
	var dumps []string
	var jcmd []map[string]int64
	for _, n := range []string{"1", "3", "5"} {
		h := javatest.Run(t, src, false, jvmArgs, n, "65536", "100", "10")
		hist, err := jvm.ParseHistogram(bytes.NewReader(h.Histogram))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, c := range hist.Classes {
			m[c.Name] = c.Instances
		}
		dumps, jcmd = append(dumps, h.Dump), append(jcmd, m)
	}
	args := append([]string{"hprof", "-json", "-n", "0", "-tmp", t.TempDir()}, dumps...)
	code, stdout, stderr := jvmRunCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Base, Target struct {
			Objects int64 `json:"objects"`
		}
		ObjectsDelta int64 `json:"objects_delta"`
		Classes      []struct {
			Name           string `json:"name"`
			Instances      int64  `json:"instances"`
			InstancesDelta int64  `json:"instances_delta"`
		} `json:"classes"`
		Dumps []struct {
			Objects   int64 `json:"objects"`
			Reachable int64 `json:"reachable"`
		} `json:"dumps"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(got.Dumps) != 3 || got.Dumps[0].Objects != got.Base.Objects || got.Dumps[2].Objects != got.Target.Objects ||
		got.ObjectsDelta != got.Target.Objects-got.Base.Objects || !(got.Dumps[0].Reachable < got.Dumps[1].Reachable && got.Dumps[1].Reachable < got.Dumps[2].Reachable) {
		t.Errorf("dumps %+v, base %d, target %d objects", got.Dumps, got.Base.Objects, got.Target.Objects)
	}
	const consumer = "LeakShape$Consumer"
	found := false
	for _, c := range got.Classes {
		if c.Name == consumer {
			found = c.Instances == jcmd[2][consumer] && c.InstancesDelta == jcmd[2][consumer]-jcmd[0][consumer] && c.InstancesDelta == 4
		}
	}
	if !found {
		t.Errorf("%s: not %d → %d instances as jcmd counts", consumer, jcmd[0][consumer], jcmd[2][consumer])
	}
	code, text, stderr := jvmRunCLI(t, "", append([]string{"hprof", "-tmp", t.TempDir()}, dumps...)...)
	if code != 0 || strings.Count(text, "(taken ") != 3 || !strings.Contains(text, "Dump 2 ") {
		t.Errorf("text: exit %d %s\n%s", code, stderr, text)
	}
}
