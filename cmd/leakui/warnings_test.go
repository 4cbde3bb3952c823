package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestComparisonsWarnFirst: histograms and thread dumps of one program on JDK 17
// and JDK 25, and native memory summaries of two processes, are compared only
// under a warning printed before anything else, and carried in the JSON; the
// JDK 25 lambdas (one instance each) are no leak suspects.
func TestComparisonsWarnFirst(t *testing.T) {
	jvm := func(name string) string { return fixtures.Path(t, "jvm", name) }
	shape := func(name string) string { return fixtures.Path(t, "leakshape", name) }
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"histo", jvm("lambdas-jdk25-class-histogram.txt"), jvm("lambdas-jdk17-class-histogram.txt")}, []string{
			"WARNING: The two files come from different JVM versions (17.0.15 in the base, 25.0.3 in the target)",
			"WARNING: The two files come from different processes (PID 21234 in the base, 21518 in the target)"}},
		{[]string{"threads", jvm("lambdas-jdk25-thread-dump.txt"), shape("leakshape-2-thread-dump.txt")}, []string{
			"WARNING: The two files come from different JVM versions (17.0.15+6-Debian-1deb12u1 in the base, 25.0.3+9-LTS in the target)",
			"WARNING: The two files come from different programs (LeakShape in the base, Lambdas in the target)",
			"WARNING: The two files come from different processes (PID 31271 in the base, 21518 in the target)"}},
		{[]string{"nmt", shape("leakshape-4-nmt-summary.txt"), shape("leakshape-2-nmt-summary.txt")}, []string{
			"WARNING: The two files come from different processes (PID 31271 in the base, 31653 in the target)"}},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 0 && code != 3 {
			t.Fatalf("leakui %s: exit %d: %s", tc.args[0], code, errs)
		}
		lines := strings.Split(out, "\n")
		for i, w := range tc.want {
			if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
				t.Errorf("leakui %s: line %d is not %q:\n%s", tc.args[0], i+1, w, out)
			}
		}
		code, out, _ = runCLI(t, append([]string{tc.args[0], "-json"}, tc.args[1:]...)...)
		var doc struct {
			Warnings []string          `json:"warnings"`
			Suspects []json.RawMessage `json:"suspects"`
		}
		var inner struct {
			Warnings []string `json:"warnings"`
		}
		var parts map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &doc); err != nil || json.Unmarshal([]byte(out), &parts) != nil {
			t.Fatalf("leakui %s -json: exit %d, %v", tc.args[0], code, err)
		}
		warnings := doc.Warnings
		for _, key := range []string{"diff", "comparison"} { // threads and nmt
			if json.Unmarshal(parts[key], &inner) == nil && inner.Warnings != nil {
				warnings = inner.Warnings
			}
		}
		if len(warnings) != len(tc.want) {
			t.Errorf("leakui %s -json: warnings %q", tc.args[0], warnings)
		}
		if tc.args[0] == "histo" && len(doc.Suspects) != 0 {
			t.Errorf("leakui histo -json: suspects %s; one lambda instance more is no leak", doc.Suspects)
		}
	}
	// One file against itself: no warning.
	if _, out, _ := runCLI(t, "nmt", shape("leakshape-2-nmt-summary.txt"), shape("leakshape-2-nmt-summary.txt")); strings.Contains(out, "WARNING") {
		t.Errorf("one summary against itself warns:\n%s", out)
	}
}

// TestGoroutinesHeadlineFirst: the text of leakui goroutines starts with the
// verdict in one sentence, in the singular for one goroutine.
func TestGoroutinesHeadlineFirst(t *testing.T) {
	code, out, errs := runCLI(t, "goroutines", fixtures.Path(t, "goroutines", "gin-fatal-error-unexpected-signal-darwin.txt"))
	want := "The program crashed (fatal error: unexpected signal during runtime execution) with 1 goroutine; the goroutine that threw is in the largest group, 1 goroutine in "
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d (%s), output does not start %q:\n%s", code, errs, want, out)
	}
}
