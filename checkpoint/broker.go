package checkpoint

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is an embedded Kafka protocol broker: one franz-go kfake broker listening on
// a free loopback port. Kafka clients, kafka-go included, talk to it over TCP.
type Broker struct {
	cluster *kfake.Cluster
	addrs   []string
}

// StartBroker starts an embedded broker. Close stops it.
func StartBroker() (*Broker, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("leakui-checkpoint"))
	if err != nil {
		return nil, fmt.Errorf("embedded broker: %w", err)
	}
	return &Broker{cluster: c, addrs: c.ListenAddrs()}, nil
}

// Addrs returns the host:port of the broker.
func (b *Broker) Addrs() []string { return append([]string(nil), b.addrs...) }

// Close stops the broker; its goroutines end once their connections close.
func (b *Broker) Close() { b.cluster.Close() }

// KfakeFrames are the functions the embedded broker's goroutines run: its loop, its
// listener and, per client connection, a reader, a writer and a pending read. Pass
// each to goleak.IgnoreAnyFunction to ignore a running broker, or use them to tell
// the broker's goroutines from the client's in a goroutine profile.
var KfakeFrames = []string{
	"github.com/twmb/franz-go/pkg/kfake.(*Cluster).run",
	"github.com/twmb/franz-go/pkg/kfake.(*broker).listen",
	"github.com/twmb/franz-go/pkg/kfake.(*clientConn).read",
	"github.com/twmb/franz-go/pkg/kfake.(*clientConn).read.func1",
	"github.com/twmb/franz-go/pkg/kfake.(*clientConn).write",
}

// ParseBrokers splits a comma-separated list of host:port brokers.
func ParseBrokers(s string) ([]string, error) {
	var out []string
	for _, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		host, port, err := net.SplitHostPort(b)
		if err != nil {
			return nil, fmt.Errorf("%w: broker %q: %v", ErrInvalidConfig, b, err)
		}
		if host == "" || strings.ContainsAny(host, " \t/") {
			return nil, fmt.Errorf("%w: broker %q: bad host", ErrInvalidConfig, b)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: broker %q: port must be 1-65535", ErrInvalidConfig, b)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty broker list %q", ErrInvalidConfig, s)
	}
	return out, nil
}

// CheckBrokers returns nil as soon as one broker of the list answers a Kafka
// ApiVersions request within timeout, and an error wrapping ErrBrokerUnreachable
// when none does.
func CheckBrokers(ctx context.Context, brokers []string, timeout time.Duration) error {
	if len(brokers) == 0 {
		return fmt.Errorf("%w: no brokers", ErrInvalidConfig)
	}
	var errs []string
	for _, b := range brokers {
		err := checkBroker(ctx, b, timeout)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		errs = append(errs, err.Error())
	}
	return fmt.Errorf("%w: no broker of %s answered within %v (%s)", ErrBrokerUnreachable,
		strings.Join(brokers, ","), timeout, strings.Join(errs, "; "))
}

func checkBroker(ctx context.Context, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &kafka.Dialer{Timeout: timeout, ClientID: "leakui-check"}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	if _, err := conn.ApiVersions(); err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	return nil
}
