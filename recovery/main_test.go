package recovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"go.uber.org/goleak"
)

// childEnv names the measurement a re-executed test binary runs instead of the
// tests. Leaky runs happen in such a child so that what they leak dies with it,
// and so that their memory figures are not disturbed by other tests.
const childEnv = "RECOVERY_TEST_CHILD"

// children are the measurements a child can run; each writes one JSON document.
var children = map[string]func() (any, error){}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name))
	}
	goleak.VerifyTestMain(m)
}

func runChild(name string) int {
	child, ok := children[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown child %q\n", name)
		return 2
	}
	out, err := child()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runInChild re-executes the test binary to run the named measurement with the
// extra environment, and decodes its JSON result into out.
func runInChild(t *testing.T, name string, out any, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+name), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child %s: %v\n%s", name, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("child %s: %v in %q", name, err, stdout.String())
	}
}
