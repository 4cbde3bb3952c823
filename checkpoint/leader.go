package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// leaderConn is one connection to the leader of partition 0 of a topic, dialled on
// first use and closed by close: the connection a Java client holds between its
// creation and close(). It is a kafka-go Conn, which runs no goroutine and arms no
// timer, so once closed nothing in the process refers to it or to the metadata it
// looked up. (A kafka-go Transport would not do: its connection pool arms a
// time.AfterFunc of IdleTimeout, 30 s by default, for every connection it returns
// to the pool, and CloseIdleConnections closes the connection without stopping
// that timer, whose function holds the pool with its cluster metadata for the 30 s.
// A model that makes an admin per rebalance then holds the metadata of every
// rebalance of the last 30 s, which upstream's closed clients do not.)
type leaderConn struct {
	brokers []string
	topic   string
	dialer  *kafka.Dialer
	timeout time.Duration // bounds one request

	conn *kafka.Conn
}

func newLeaderConn(brokers []string, topic, clientID string, dialTimeout, timeout time.Duration) *leaderConn {
	return &leaderConn{brokers: brokers, topic: topic, timeout: timeout,
		dialer: &kafka.Dialer{ClientID: clientID, Timeout: dialTimeout}}
}

// do runs fn on the connection, dialling the leader first when there is none,
// within the request timeout and ctx: cancelling ctx fails the request at once.
// The connection is closed after an error, so the next call dials again.
func (l *leaderConn) do(ctx context.Context, fn func(*kafka.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.conn == nil {
		c, err := l.dial(ctx)
		if err != nil {
			return err
		}
		l.conn = c
	}
	deadline := time.Now().Add(l.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c := l.conn
	if err := c.SetDeadline(deadline); err != nil {
		l.close()
		return err
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	err := fn(c)
	stop()
	if err != nil {
		l.close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return err
}

// dial connects to the leader of partition 0, asking each broker in turn.
func (l *leaderConn) dial(ctx context.Context) (*kafka.Conn, error) {
	var errs []error
	for _, b := range l.brokers {
		c, err := l.dialer.DialLeader(ctx, "tcp", b, l.topic, 0)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("leader of %s partition 0: %w", l.topic, errors.Join(errs...))
}

// close closes the connection, if any.
func (l *leaderConn) close() {
	if l.conn != nil {
		l.conn.Close()
		l.conn = nil
	}
}
