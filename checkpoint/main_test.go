package checkpoint

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package when any goroutine outlives the tests: every broker is
// closed and every leaked consumer reaped by the end.
func TestMain(m *testing.M) {
	if os.Getenv(brokerChildEnv) == "1" {
		os.Exit(runBrokerChild())
	}
	goleak.VerifyTestMain(m)
}

// brokerChildEnv makes the test binary serve an embedded broker instead of running
// tests (ServeBroker), as `leakui work broker` does: the tests and benchmarks that
// measure the client keep the broker's goroutines and memory out of their process.
const brokerChildEnv = "LEAKUI_CHECKPOINT_BROKER_CHILD"

// runBrokerChild serves a broker until stdin closes.
func runBrokerChild() int {
	if err := ServeBroker(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// brokerCommand is the command line and environment of a broker process: this
// test binary with brokerChildEnv set.
func brokerCommand() (argv, env []string) {
	return []string{os.Args[0], "-test.run=^$"}, []string{brokerChildEnv + "=1"}
}

// startBrokerProcess starts a broker in a child process that the test stops at its
// end.
func startBrokerProcess(t testing.TB) *BrokerProcess {
	t.Helper()
	argv, env := brokerCommand()
	p, err := StartBrokerProcess(context.Background(), argv, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startBroker starts an embedded broker that the test closes at its end.
func startBroker(t testing.TB) *Broker {
	t.Helper()
	b, err := StartBroker()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// addrser is a broker in this process or in a child.
type addrser interface{ Addrs() []string }

// run runs a workload against b and registers its Close.
func run(t testing.TB, b addrser, cfg Config) (Result, *Workload) {
	t.Helper()
	cfg.Brokers = b.Addrs()
	if cfg.Job == "" {
		cfg.Job = jobName(t)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	res, err := w.Run(context.Background())
	if err != nil {
		t.Fatalf("run %s/%s: %v", cfg.Variant, cfg.Mode, err)
	}
	return res, w
}

// jobName turns a test name into a valid, unique job name.
func jobName(t testing.TB) string {
	b := []byte(t.Name())
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > 90 {
		b = b[len(b)-90:]
	}
	return string(b)
}

// eventually waits up to 10 s for cond, then fails with msg.
func eventually(t testing.TB, cond func() bool, msg func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(msg())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
