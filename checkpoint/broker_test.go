package checkpoint

import (
	"context"
	"testing"

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
