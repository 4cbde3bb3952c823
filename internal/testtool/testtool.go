// Package testtool is the tests' one policy for programs outside Go: a test that
// needs a program this machine lacks (grep, sed, Chromium, PostgreSQL) is skipped
// with a message naming the program and how to install it, and fails instead when
// CI=true, because .ci/run installs every program the tests use.
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true), where nothing may be skipped
// for a missing program.
func InCI() bool { return os.Getenv("CI") == "true" }

// installHints says how to get each program the tests use on Debian.
var installHints = map[string]string{
	"grep":     "apt-get install -y grep",
	"sed":      "apt-get install -y sed",
	"iconv":    "apt-get install -y libc-bin",
	"chromium": "apt-get install -y chromium",
	"postgres": "apt-get install -y postgresql, then export LEAKUI_TEST_POSTGRES=$(.ci/postgres start /tmp/leakui-pg)",
	"jdk":      "apt-get install -y openjdk-17-jdk-headless",
	"prlimit":  "apt-get install -y util-linux",
	"env":      "apt-get install -y coreutils",
	"time":     "apt-get install -y time",
}

// Hint returns how to install the program name, as a command to run.
func Hint(name string) string {
	if h, ok := installHints[name]; ok {
		return h
	}
	return "install " + name
}

// Missing ends the test for a program that is not there: tb.Skipf locally, tb.Fatalf
// in CI. what names the program (or the setting) and why says what it was needed for.
func Missing(tb testing.TB, what, hint, why string) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("%s is missing (%s); CI must run this test: %s", what, why, hint)
	}
	tb.Skipf("skipped: %s is missing (%s); to run it: %s", what, why, hint)
}

// Require returns the path of the program name (looked up in PATH, or an absolute
// path), or ends the test through Missing when it is not there. key names the
// program in the install hints ("grep", "chromium", …).
func Require(tb testing.TB, key, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, name, Hint(key), "this test runs it as its anchor or driver")
	}
	return path
}
