package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

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

// TestUTF16WithoutMarkIsHinted: a JVM file saved as UTF-16 without its byte
// order mark (its first '2' passes for a profile.proto field) is named as
// such, with how to convert it, by the profile and JVM commands alike, not
// called a pprof profile.
func TestUTF16WithoutMarkIsHinted(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "jvm", "jthreaddump-jstack-deadlock.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var le []byte
	for _, u := range utf16.Encode([]rune(string(data))) {
		le = append(le, byte(u), byte(u>>8))
	}
	path := filepath.Join(t.TempDir(), "threads.txt")
	if err := os.WriteFile(path, le, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"top", path}, {"histo", path}, {"threads", path}} {
		code, _, errs := runCLI(t, cmd...)
		if code != 1 || !strings.Contains(errs, "UTF-16LE text without a byte order mark") || !strings.Contains(errs, "iconv -f UTF-16LE") || strings.Contains(errs, "pprof profile (") {
			t.Errorf("leakui %v: exit %d, stderr %q", cmd, code, errs)
		}
	}
}
