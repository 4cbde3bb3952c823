package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/javatest"
)

// TestHprofViews runs `leakui hprof -view` on a real dump taken with -all of
// the SAMZA-2785 shape: the dominator tree's top level grouped by class and by
// loader adds up to the reachable heap the report states; the objects not
// strongly reachable are the dump's objects minus the reachable ones; the path
// to a leaked consumer starts at its thread and never goes through a
// Reference's referent (the consumers are also in a registry of weak
// references); a bad -view or -object is a usage error.
func TestHprofViews(t *testing.T) {
	jh := javatest.RunAll(t, "../../analyze/hprof/testdata/LeakShape.java", false,
		[]string{"-XX:+UseSerialGC", "-Xmx128m"}, "6", "1048576", "100", "10")
	runJSON := func(v any, args ...string) string {
		t.Helper()
		code, stdout, stderr := jvmRunCLI(t, "", append([]string{"hprof", "-json"}, append(args, jh.Dump)...)...)
		if code != 0 {
			t.Fatalf("leakui hprof %v: exit %d: %s", args, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), v); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return stdout
	}
	var rep struct {
		Objects   int64 `json:"objects"`
		Reachable int64 `json:"reachable"`
		Suspects  []struct {
			Path []struct {
				Object struct {
					Ordinal int64  `json:"ordinal"`
					Class   string `json:"class"`
				} `json:"object"`
			} `json:"path"`
		} `json:"suspects"`
	}
	runJSON(&rep, "-n", "0")

	var byClass struct {
		Groups []struct {
			Retained int64 `json:"retained"`
		} `json:"groups"`
		Total int `json:"total"`
	}
	runJSON(&byClass, "-n", "0", "-view", "by-class")
	var byLoader struct {
		Loaders []struct {
			Retained int64 `json:"retained"`
		} `json:"loaders"`
	}
	runJSON(&byLoader, "-n", "0", "-view", "by-loader")
	var sumClass, sumLoader int64
	for _, g := range byClass.Groups {
		sumClass += g.Retained
	}
	for _, l := range byLoader.Loaders {
		sumLoader += l.Retained
	}
	if sumClass != rep.Reachable || sumLoader != rep.Reachable || byClass.Total != len(byClass.Groups) {
		t.Errorf("grouped by class %d (%d of %d groups), by loader %d; the report's reachable heap %d", sumClass, len(byClass.Groups), byClass.Total, sumLoader, rep.Reachable)
	}

	var unreachable struct {
		All struct {
			Objects     int64 `json:"Objects"`
			Unreachable struct {
				Count int64 `json:"count"`
			} `json:"unreachable"`
		} `json:"all"`
	}
	runJSON(&unreachable, "-view", "unreachable")
	if unreachable.All.Unreachable.Count == 0 || unreachable.All.Objects <= 0 || unreachable.All.Objects >= rep.Objects {
		t.Errorf("not strongly reachable: %+v of %d objects", unreachable.All, rep.Objects)
	}

	consumer := int64(-1)
	for _, s := range rep.Suspects {
		for _, st := range s.Path {
			if st.Object.Class == "LeakShape$Consumer" {
				consumer = st.Object.Ordinal
			}
		}
	}
	if consumer < 0 {
		t.Fatal("no LeakShape$Consumer on a suspect's path")
	}
	var path struct {
		Steps []struct {
			Object struct {
				Ordinal int64  `json:"ordinal"`
				Class   string `json:"class"`
			} `json:"object"`
			Field string `json:"field"`
			Root  string `json:"root"`
		} `json:"steps"`
		Length int `json:"length"`
	}
	out := runJSON(&path, "-view", "path", "-object", strconv.FormatInt(consumer, 10))
	if path.Length != 2 || len(path.Steps) != 2 || !strings.HasPrefix(path.Steps[0].Root, "thread KafkaConsumerProxy-") ||
		path.Steps[1].Field != "consumer" || path.Steps[1].Object.Class != "LeakShape$Consumer" || strings.Contains(out, `"referent"`) {
		t.Errorf("the consumer's path: %s", out)
	}

	// What the consumer's thread dominates, grouped by class: its consumer.
	var kids struct {
		Groups []struct {
			Class    string `json:"class"`
			Objects  int64  `json:"objects"`
			Retained int64  `json:"retained"`
			Largest  struct {
				Ordinal int64 `json:"ordinal"`
			} `json:"largest"`
		} `json:"groups"`
		Total int `json:"total"`
	}
	out = runJSON(&kids, "-view", "by-class", "-object", strconv.FormatInt(path.Steps[0].Object.Ordinal, 10))
	i := slices.IndexFunc(kids.Groups, func(g struct {
		Class    string `json:"class"`
		Objects  int64  `json:"objects"`
		Retained int64  `json:"retained"`
		Largest  struct {
			Ordinal int64 `json:"ordinal"`
		} `json:"largest"`
	}) bool {
		return g.Class == "LeakShape$Consumer"
	})
	if i < 0 || kids.Groups[i].Objects != 1 || kids.Groups[i].Largest.Ordinal != consumer || kids.Groups[i].Retained < 1<<20 || kids.Total != len(kids.Groups) {
		t.Errorf("what the consumer's thread dominates, by class: %s", out)
	}

	code, stdout, stderr := jvmRunCLI(t, "", "hprof", "-view", "by-class", "-n", "3", jh.Dump)
	if code != 0 || !strings.Contains(stdout, "Dominator tree, top level grouped by class") || !strings.Contains(stdout, "LeakShape$Consumer") {
		t.Errorf("exit %d, %s\n%s", code, stderr, stdout)
	}
	for _, args := range [][]string{{"-view", "nope"}, {"-view", "path"}, {"-view", "path", "-object", "999999999"}, {"-view", "by-class", "-object", "999999999"}} {
		if code, _, _ := jvmRunCLI(t, "", append(append([]string{"hprof"}, args...), jh.Dump)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
