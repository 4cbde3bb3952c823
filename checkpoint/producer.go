package checkpoint

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// systemProducer is the model of the checkpoint SystemProducer: a kafka-go Writer
// with its own Transport, so its connections close with close() and never mix with
// the consumers' in a measurement. start() opens the writer when closed, so a
// manager can be started again after stop().
type systemProducer struct {
	brokers     []string
	topic       string
	clientID    string
	dialTimeout time.Duration

	writer    *kafka.Writer
	transport *kafka.Transport
}

func newSystemProducer(brokers []string, topic, clientID string, dialTimeout time.Duration) *systemProducer {
	return &systemProducer{brokers: brokers, topic: topic, clientID: clientID, dialTimeout: dialTimeout}
}

// start opens the writer; it dials on the first send.
func (p *systemProducer) start() {
	if p.writer != nil {
		return
	}
	p.transport = &kafka.Transport{ClientID: p.clientID, DialTimeout: p.dialTimeout}
	p.writer = &kafka.Writer{
		Addr:         kafka.TCP(p.brokers...),
		Topic:        p.topic,
		Balancer:     &kafka.LeastBytes{},
		RequiredAcks: kafka.RequireAll,
		BatchSize:    1, // send and flush every checkpoint, like send+flush in Samza
		WriteTimeout: 30 * time.Second,
		Transport:    p.transport,
	}
}

// send writes one message and waits for the broker's acknowledgement.
func (p *systemProducer) send(ctx context.Context, key, value []byte) error {
	if p.writer == nil {
		return fmt.Errorf("write to %s: %w", p.topic, ErrNotStarted)
	}
	if err := p.writer.WriteMessages(ctx, kafka.Message{Key: key, Value: value}); err != nil {
		return fmt.Errorf("write to %s: %w", p.topic, err)
	}
	return nil
}

// close flushes and closes the writer and drops its connections.
func (p *systemProducer) close() error {
	if p.writer == nil {
		return nil
	}
	err := p.writer.Close()
	p.transport.CloseIdleConnections()
	p.writer, p.transport = nil, nil
	return err
}
