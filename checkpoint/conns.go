package checkpoint

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// connTracker dials the TCP connections of one consumer and can close them all at
// once. Closing is how Stop wakes up a fetch that waits on the broker's long poll,
// as KafkaConsumer.wakeup() does in Samza, instead of waiting for MaxWait.
type connTracker struct {
	dialer net.Dialer
	open   *atomic.Int64 // connections open in the whole workload

	mu     sync.Mutex
	closed bool
	conns  map[*trackedConn]struct{}
}

func newConnTracker(timeout time.Duration, open *atomic.Int64) *connTracker {
	return &connTracker{
		dialer: net.Dialer{Timeout: timeout},
		open:   open,
		conns:  make(map[*trackedConn]struct{}),
	}
}

// dial is the kafka-go Dialer.DialFunc of one consumer.
func (t *connTracker) dial(ctx context.Context, network, address string) (net.Conn, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, ErrConsumerStopped
	}
	c, err := t.dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		c.Close()
		return nil, ErrConsumerStopped
	}
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	t.open.Add(1)
	return tc, nil
}

// closeAll closes every open connection and refuses new ones.
func (t *connTracker) closeAll() {
	t.mu.Lock()
	t.closed = true
	conns := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// trackedConn removes itself from its tracker when closed.
type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
	err  error
}

// Close closes the connection once.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.err = c.Conn.Close()
		c.t.mu.Lock()
		delete(c.t.conns, c)
		c.t.mu.Unlock()
		c.t.open.Add(-1)
	})
	return c.err
}
