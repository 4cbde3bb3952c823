package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// runGoroutinesCLI runs leakui in-process and returns its exit status, stdout and stderr.
func runGoroutinesCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, stdio{strings.NewReader(stdin), &out, &errOut})
	return code, out.String(), errOut.String()
}

// goroutinesJSON is the contract of `leakui goroutines -json`, with the fields this
// test reads.
type goroutinesJSON struct {
	Total  int    `json:"total"`
	Format string `json:"format"`
	Panic  *struct {
		Message   string `json:"message"`
		Goroutine int64  `json:"goroutine"`
	} `json:"panic"`
	Base *struct {
		Total int `json:"total"`
	} `json:"base"`
	Groups []struct {
		Count  int      `json:"count"`
		State  string   `json:"state"`
		Stack  []string `json:"stack"`
		Frames []struct {
			Func string `json:"func"`
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"frames"`
		IDs       []int64 `json:"ids"`
		WaitMin   int     `json:"wait_min"`
		WaitMax   int     `json:"wait_max"`
		Panicking bool    `json:"panicking"`
		BaseCount *int    `json:"base_count"`
		Delta     *int    `json:"delta"`
		New       bool    `json:"new"`
		Gone      bool    `json:"gone"`
	} `json:"groups"`
}

func decodeGoroutines(t *testing.T, out string) goroutinesJSON {
	t.Helper()
	var j goroutinesJSON
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatal("more than one JSON document on stdout")
	}
	return j
}

// TestGoroutinesJSONDebug1 checks the JSON contract on the erigon dump: the total
// is the dump's own "total" line and the counts are its records, read with grep.
func TestGoroutinesJSONDebug1(t *testing.T) {
	path := fixtures.Path(t, "goroutines", "erigon-debug1-20161-goroutines.txt")
	code, out, stderr := runGoroutinesCLI(t, "", "goroutines", "-json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	j := decodeGoroutines(t, out)
	line := strings.Join(greptest.Output(t, "-m1", "^goroutine profile: total", path), "")
	total := int(greptest.Int(t, strings.TrimPrefix(line, "goroutine profile: total ")))
	records := strings.Fields(strings.ReplaceAll(strings.Join(greptest.Output(t, "-oE", "^[0-9]+ @", path), "\n"), " @", ""))
	if j.Total != total || len(j.Groups) != len(records) || j.Format != "debug=1" {
		t.Fatalf("total %d in %d groups (%s); the dump says %d in %d records", j.Total, len(j.Groups), j.Format, total, len(records))
	}
	sum := 0
	for i, g := range j.Groups {
		sum += g.Count
		if len(g.Stack) != len(g.Frames) || len(g.Stack) == 0 || g.Stack[0] != g.Frames[0].Func || g.Frames[0].Line == 0 {
			t.Errorf("group %d: stack %v, frames %+v", i, g.Stack, g.Frames)
		}
		if i > 0 && g.Count > j.Groups[i-1].Count {
			t.Errorf("group %d (%d) after a smaller one (%d)", i, g.Count, j.Groups[i-1].Count)
		}
	}
	largest, _ := strconv.Atoi(records[0]) // the runtime writes records largest first
	if sum != total || j.Groups[0].Count != largest {
		t.Errorf("groups add up to %d, the largest is %d; want %d and %d", sum, j.Groups[0].Count, total, largest)
	}
}

// TestGoroutinesJSONWithBase compares the debug=1 snapshots, 70 s apart: groups
// that are new or grew come first, unchanged ones after, gone ones last, each with
// its base count and delta; the deltas add up to the change of the totals.
func TestGoroutinesJSONWithBase(t *testing.T) {
	base := fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug1.txt")
	target := fixtures.Path(t, "goroutines", "goprofnotes-snap2-debug1.txt")
	code, out, stderr := runGoroutinesCLI(t, "", "goroutines", "-json", target, base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	j := decodeGoroutines(t, out)
	if j.Base == nil {
		t.Fatal("no base in the JSON")
	}
	rank := func(i int) int {
		g := j.Groups[i]
		switch {
		case g.Delta == nil || g.BaseCount == nil:
			t.Fatalf("group %d without base_count and delta", i)
		case *g.Delta > 0:
			return 0
		case *g.Delta == 0:
			return 1
		case !g.Gone:
			return 2
		}
		return 3
	}
	sum, news := 0, 0
	for i, g := range j.Groups {
		sum += *g.Delta
		if g.New {
			news++
			if *g.BaseCount != 0 || *g.Delta != g.Count {
				t.Errorf("new group %d: base %d delta %d count %d", i, *g.BaseCount, *g.Delta, g.Count)
			}
		}
		if i > 0 && rank(i-1) > rank(i) {
			t.Errorf("group %d (delta %d) after group %d (delta %d)", i, *g.Delta, i-1, *j.Groups[i-1].Delta)
		}
	}
	if sum != j.Total-j.Base.Total || news == 0 || !j.Groups[0].New {
		t.Errorf("deltas add up to %d, totals differ by %d; %d new groups, first new: %v", sum, j.Total-j.Base.Total, news, j.Groups[0].New)
	}
}

// TestGoroutinesText checks the human output of a crash: the message, the
// panicking goroutine first, and every frame's file:line as in the dump.
func TestGoroutinesText(t *testing.T) {
	path := fixtures.Path(t, "goroutines", "gin-fatal-error-unexpected-signal-darwin.txt")
	code, out, stderr := runGoroutinesCLI(t, "", "goroutines", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"fatal error: unexpected signal during runtime execution\n",
		"[signal SIGSEGV: segmentation violation",
		"goroutine 1 threw; its group comes first.",
		"1 goroutine in 1 group (fatal error)",
		"1 goroutine [syscall] PANICKING ids 1\n",
		"app.go:10\n",
		"/usr/local/go/src/runtime/sys_darwin.go:22\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestGoroutinesStdinAndLimit reads a proto from standard input and shows only the
// first group, keeping the total.
func TestGoroutinesStdinAndLimit(t *testing.T) {
	raw, err := os.ReadFile(fixtures.Path(t, "pprof", "flameshow-goroutine.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runGoroutinesCLI(t, string(raw), "goroutines", "-json", "-n", "1", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	j := decodeGoroutines(t, out)
	if j.Total != 37 || len(j.Groups) != 1 || j.Format != "profile.proto" || j.Groups[0].State != "" {
		t.Errorf("total %d, %d groups, format %q", j.Total, len(j.Groups), j.Format)
	}
}

// TestGoroutinesErrors checks exit statuses: 2 for usage mistakes, 1 with a clear
// message for inputs that are no goroutine dump.
func TestGoroutinesErrors(t *testing.T) {
	heap := fixtures.Path(t, "pprof", "flameshow-heap.pb.gz")
	log := fixtures.Path(t, "logs", "loghub-HDFS_2k.log")
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"goroutines"}, 2, "Usage: leakui goroutines"},
		{[]string{"goroutines", "a", "b", "c"}, 2, "Usage: leakui goroutines"},
		{[]string{"goroutines", "-n", "-1", log}, 2, "Usage"},
		{[]string{"goroutines", "-bogus", log}, 2, "flag provided but not defined"},
		{[]string{"goroutines", heap}, 1, "not a goroutine profile"},
		{[]string{"goroutines", log}, 1, "without goroutine tracebacks"},
		{[]string{"goroutines", "/nonexistent/dump.txt"}, 1, "no such file"},
	} {
		code, _, stderr := runGoroutinesCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d saying %q", tc.args, code, stderr, tc.code, tc.says)
		}
	}
}
