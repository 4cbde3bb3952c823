package main

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// TestTopOnADumpNamesTheCommand: leakui top on a goroutine dump, a JVM histogram or
// a log fails and names the command that reads the file, as histo does.
func TestTopOnADumpNamesTheCommand(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{fixtures.Path(t, "goroutines", "goprofnotes-snap1-debug2.txt"), "try leakui goroutines"},
		{fixtures.Path(t, "logs", "loghub-HDFS_2k.log"), "try leakui count"},
	} {
		for _, cmd := range [][]string{{"top", c.file}, {"diff", c.file, c.file}} {
			code, _, errs := runCLI(t, cmd...)
			if code != 1 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("leakui %v: exit %d, stderr %q; want exit 1 and one line with %q", cmd, code, errs, c.want)
			}
		}
	}
}
