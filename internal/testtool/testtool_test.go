package testtool

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// missingProgram is a program name no machine has.
const missingProgram = "leakui-testtool-no-such-program"

// TestRequireMissingChild is the child of TestRequireMissing: it asks for a program
// that does not exist.
func TestRequireMissingChild(t *testing.T) {
	if os.Getenv("LEAKUI_TESTTOOL_CHILD") != "1" {
		t.Skip("runs only as the child of TestRequireMissing")
	}
	Require(t, "grep", missingProgram)
	t.Log("reached the end: Require did not stop the test")
}

// TestRequireMissing runs a test that needs a missing program twice, in a child
// process: without CI=true it is skipped with the program's name and the install
// hint; with CI=true it fails with the same words.
func TestRequireMissing(t *testing.T) {
	for _, tc := range []struct {
		ci       string
		wantWord string // what go test -v prints for the child test
		wantExit bool   // whether the child process fails
	}{
		{"", "--- SKIP: TestRequireMissingChild", false},
		{"true", "--- FAIL: TestRequireMissingChild", true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequireMissingChild$", "-test.v")
		cmd.Env = append(os.Environ(), "LEAKUI_TESTTOOL_CHILD=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		text := string(out)
		if failed := err != nil; failed != tc.wantExit {
			t.Errorf("CI=%q: child failed=%v, want %v:\n%s", tc.ci, failed, tc.wantExit, text)
		}
		for _, want := range []string{tc.wantWord, missingProgram + " is missing", "apt-get install -y grep"} {
			if !strings.Contains(text, want) {
				t.Errorf("CI=%q: child output lacks %q:\n%s", tc.ci, want, text)
			}
		}
		if strings.Contains(text, "reached the end") {
			t.Errorf("CI=%q: the test went on after Require:\n%s", tc.ci, text)
		}
	}
}

// TestRequireFound returns the path of a program that is there (the test binary
// itself, by absolute path) without stopping the test.
func TestRequireFound(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := Require(t, "grep", exe); got != exe {
		t.Errorf("Require(%q) = %q", exe, got)
	}
}
