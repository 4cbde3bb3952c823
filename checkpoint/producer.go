package checkpoint

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// systemProducer is the model of the checkpoint SystemProducer
// (KafkaSystemProducer.scala): start() opens it, send writes one message to
// partition 0 and waits for every in-sync replica to acknowledge it (acks=all, as
// send+flush in Samza), and stop() closes it (KafkaSystemProducer.scala:56-63), so
// a manager can be started again after stop(). It writes over its own connection to
// the partition's leader, which close() closes, leaving nothing behind (see
// leaderConn); its connections never mix with the consumers' in a measurement.
type systemProducer struct {
	brokers     []string
	topic       string
	clientID    string
	dialTimeout time.Duration

	leader *leaderConn
}

func newSystemProducer(brokers []string, topic, clientID string, dialTimeout time.Duration) *systemProducer {
	return &systemProducer{brokers: brokers, topic: topic, clientID: clientID, dialTimeout: dialTimeout}
}

// start opens the producer; it dials on the first send.
func (p *systemProducer) start() {
	if p.leader != nil {
		return
	}
	p.leader = newLeaderConn(p.brokers, p.topic, p.clientID, p.dialTimeout, 30*time.Second)
}

// send writes one message and waits for the broker's acknowledgement.
func (p *systemProducer) send(ctx context.Context, key, value []byte) error {
	if p.leader == nil {
		return fmt.Errorf("write to %s: %w", p.topic, ErrNotStarted)
	}
	err := p.leader.do(ctx, func(c *kafka.Conn) error {
		_, err := c.WriteMessages(kafka.Message{Key: key, Value: value})
		return err
	})
	if err != nil {
		return fmt.Errorf("write to %s: %w", p.topic, err)
	}
	return nil
}

// close closes the producer's connection. Every send has been acknowledged when
// it returned, so there is nothing to flush.
func (p *systemProducer) close() error {
	if p.leader == nil {
		return nil
	}
	p.leader.close()
	p.leader = nil
	return nil
}
