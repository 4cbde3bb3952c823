package checkpoint

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/goleak"
)

func TestKfakeFramesCoverTheBrokersGoroutines(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	b := startBroker(t)
	conn, err := kafka.DialContext(context.Background(), "tcp", b.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ApiVersions(); err != nil { // the broker now serves a connection
		t.Fatal(err)
	}
	opts := []goleak.Option{ignore}
	for _, f := range KfakeFrames {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("KfakeFrames miss a goroutine of the broker: %v", err)
	}
	if err := goleak.Find(ignore); err == nil {
		t.Error("a broker serving a connection has no goroutine at all")
	}
	conn.Close()
	b.Close()
	goleak.VerifyNone(t, ignore) // a closed broker leaves nothing behind
}

// TestBrokerProcessServesUntilItsStdinCloses starts the broker in a child process
// (ServeBroker, as `leakui work broker` runs it), talks Kafka to it, and checks that
// closing its stdin — what the parent's exit does too — ends the process.
func TestBrokerProcessServesUntilItsStdinCloses(t *testing.T) {
	argv, env := brokerCommand()
	p, err := StartBrokerProcess(context.Background(), argv, env)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID() == os.Getpid() {
		t.Fatal("the broker runs in this process")
	}
	if err := CheckBrokers(context.Background(), p.Addrs(), 5*time.Second); err != nil {
		t.Fatalf("the broker process does not answer: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if st := p.cmd.ProcessState; st == nil || !st.Exited() || st.ExitCode() != 0 {
		t.Errorf("after Close the broker process is %v, want exited with 0", st)
	}
	if err := CheckBrokers(context.Background(), p.Addrs(), time.Second); !errors.Is(err, ErrBrokerUnreachable) {
		t.Errorf("after Close: %v, want ErrBrokerUnreachable", err)
	}
	if _, err := StartBrokerProcess(context.Background(), []string{"/bin/true"}, nil); !errors.Is(err, ErrBrokerUnreachable) {
		t.Errorf("a command that prints no address: %v, want ErrBrokerUnreachable", err)
	}
}
